// io_bench: the time formac run spends writing one output image, and reading
// it back as an input, for each format at 4096x4096 (--size N), as a
// markdown table: the median of --runs runs (default 7) of the process's CPU
// time (every thread's: the PNG writer and the conversion use one a
// processor), which a busy machine barely changes, and of the wall time. The picture is the
// sample photo (examples/data/camera.png) tiled to the size: real content,
// not noise or flat colour, for the compressors. "write" is
// run::writeOutputImage from a float image (values 0..1; RGB: a struct of 3
// floats), which converts and encodes, as after a run; "encode" is
// formac_image_write alone on the converted samples; "read" is
// run::readInputImage of the file into the same element type. --format PNG
// (JPEG, TIFF, ...): that format's rows only.
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "formac_image.h"
#include "run/ImageIO.h"

using namespace formac;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median milliseconds of `runs` calls of f: the process's CPU time (what
// the work costs, whatever else the machine runs) and wall time.
struct Times {
  double cpu, wall;
};
double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
Times timeIt(int runs, const std::function<void()>& f) {
  std::vector<double> cpu, wall;
  for (int r = 0; r < runs; ++r) {
    double c0 = cpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    f();
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3);
    cpu.push_back((cpuSeconds() - c0) * 1e3);
  }
  return {median(cpu), median(wall)};
}

std::string cpuName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

// "12.3 (45.6)": CPU ms, wall ms in brackets.
std::string text(Times t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f (%.1f)", t.cpu, t.wall);
  return buf;
}

long fileSize(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return in ? static_cast<long>(in.tellg()) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int size = 4096, runs = 7;
  std::string dir = "/tmp", only;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--size") size = std::atoi(argv[i + 1]);
    else if (a == "--runs") runs = std::atoi(argv[i + 1]);
    else if (a == "--dir") dir = argv[i + 1];
    else if (a == "--format") only = argv[i + 1];
  }
  formac_image cam{};
  char err[512];
  if (formac_image_read(FORMAC_SOURCE_DIR "/examples/data/camera.png", &cam, err, sizeof err)) {
    std::fprintf(stderr, "%s\n", err);
    return 1;
  }
  static StructType rgb{"rgb", {{"r", ScalarKind::Float}, {"g", ScalarKind::Float}, {"b", ScalarKind::Float}}};
  auto picture = [&](const Type& t, int channels) {
    run::HostImage img;
    img.type = t;
    img.extent = {size, size};
    size_t n = static_cast<size_t>(size) * size;
    std::vector<float> v(n * channels);
    const unsigned char* c = static_cast<const unsigned char*>(cam.data);
    for (size_t i = 0; i < n; ++i) {
      size_t y = i / size % cam.height, x = i % size % cam.width;
      unsigned char g = c[y * cam.width + x];
      for (int k = 0; k < channels; ++k) v[i * channels + k] = (k == 1 ? 255 - g : k == 2 ? g / 2 : g) / 255.0f;
    }
    img.bytes.resize(n * channels * sizeof(float));
    std::copy_n(reinterpret_cast<const unsigned char*>(v.data()), img.bytes.size(), img.bytes.data());
    return img;
  };
  run::HostImage gray = picture(Type::of(ScalarKind::Float), 1), color = picture(Type::ofStruct(&rgb), 3);

  struct Row {
    const char* format;
    const char* what;
    const run::HostImage* img;
    run::SampleFormat depth;
    const char* ext;
  };
  const Row rows[] = {
      {"PNG", "8-bit gray", &gray, run::SampleFormat::U8, "png"},
      {"PNG", "8-bit RGB", &color, run::SampleFormat::U8, "png"},
      {"PNG", "16-bit gray", &gray, run::SampleFormat::U16, "png"},
      {"JPEG", "8-bit gray", &gray, run::SampleFormat::U8, "jpg"},
      {"JPEG", "8-bit RGB", &color, run::SampleFormat::U8, "jpg"},
      {"TIFF", "8-bit gray", &gray, run::SampleFormat::U8, "tif"},
      {"TIFF", "16-bit gray", &gray, run::SampleFormat::U16, "tif"},
      {"TIFF", "float gray", &gray, run::SampleFormat::F32, "tif"},
      {"PGM", "8-bit gray", &gray, run::SampleFormat::U8, "pgm"},
      {"PFM", "float gray", &gray, run::SampleFormat::F32, "pfm"},
      {"NPY", "float gray", &gray, run::SampleFormat::F32, "npy"},
  };
  std::printf("| format | samples | size | file MB | write ms | encode ms | read ms |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    if (!only.empty() && only != r.format) continue;
    std::string path = dir + "/io_bench." + r.ext;
    Times write = timeIt(runs, [&] { run::writeOutputImage(path, "out", *r.img, r.depth); });
    // The encoder alone: the converted samples of the file just written.
    std::string encode = "-";
    formac_image file{};
    if (std::string(r.ext) != "npy" &&
        formac_image_read_flags(path.c_str(), &file, FORMAC_READ_ALPHA, err, sizeof err) == 0) {
      encode = text(timeIt(runs, [&] { formac_image_write(path.c_str(), &file, err, sizeof err); }));
      formac_image_free(&file);
    }
    Times read = timeIt(runs, [&] { run::readInputImage(path, "in", r.img->type, 2); });
    std::printf("| %s | %s | %dx%d | %.1f | %s | %s | %s |\n", r.format, r.what, size, size, fileSize(path) / 1e6,
                text(write).c_str(), encode.c_str(), text(read).c_str());
    std::remove(path.c_str());
  }
  utsname u{};
  uname(&u);
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf("\nms: CPU time of the process, all threads (wall time in brackets), median of %d runs; %s, %ld cores, "
              "%s %s; load average %.1f; %s.\n",
              runs, cpuName().c_str(), sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, load[0], date);
  formac_image_free(&cam);
  return 0;
}
