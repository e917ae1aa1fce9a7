// The runtime's JPEG and TIFF (runtime/formac_jpeg.c, formac_tiff.c), its
// PNG writer (formac_png_write.c) and the read flags: round trips of every
// sample type x channel count x page count with exact values, files written
// by libtiff and libpng themselves, and corrupt files (an error naming the
// file, never a crash).
#include <gtest/gtest.h>
#include <png.h>
#include <tiffio.h>
#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "formac_deflate.h"
#include "formac_image.h"
#include "formac_image_internal.h"

namespace fs = std::filesystem;

namespace {

struct Img {
  formac_image im{};
  ~Img() { formac_image_free(&im); }
  formac_image* get() { return &im; }
  formac_image* operator->() { return &im; }
};

class RuntimeFormats : public ::testing::Test {
 protected:
  fs::path dir;
  char err[512] = {};
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("formac_formats_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  // Reading `p` fails with a message naming it.
  std::string expectReadFails(const std::string& p, int flags = 0) {
    Img img;
    EXPECT_NE(formac_image_read_flags(p.c_str(), img.get(), flags, err, sizeof err), 0) << p;
    EXPECT_EQ(img->data, nullptr);
    EXPECT_NE(std::string(err).find("'" + p + "'"), std::string::npos) << err;
    return err;
  }
};

std::vector<unsigned char> readBytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}

void writeBytes(const std::string& p, const std::vector<unsigned char>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

void fillRandom(formac_image* img, unsigned seed) {
  std::mt19937 rng(seed);
  size_t n = formac_image_samples(img);
  for (size_t i = 0; i < n; ++i) {
    switch (img->type) {
      case FORMAC_U8: static_cast<uint8_t*>(img->data)[i] = static_cast<uint8_t>(rng()); break;
      case FORMAC_U16: static_cast<uint16_t*>(img->data)[i] = static_cast<uint16_t>(rng()); break;
      case FORMAC_F32: static_cast<float*>(img->data)[i] = static_cast<float>(static_cast<int>(rng() % 20001) - 10000) / 7.0f; break;
      default: break;
    }
  }
}

bool sameSamples(const formac_image& a, const formac_image& b) {
  return a.width == b.width && a.height == b.height && a.channels == b.channels && a.type == b.type &&
         (a.pages > 1 ? a.pages : 1) == (b.pages > 1 ? b.pages : 1) &&
         std::memcmp(a.data, b.data, formac_image_bytes(&a)) == 0;
}

TEST_F(RuntimeFormats, TiffRoundTripsEveryTypeChannelCountAndPageCount) {
  for (formac_pixel_type t : {FORMAC_U8, FORMAC_U16, FORMAC_F32})
    for (int channels = 1; channels <= 4; ++channels)
      for (int pages : {1, 3}) {
        SCOPED_TRACE(std::string(formac_pixel_type_name(t)) + " x" + std::to_string(channels) + " pages " +
                     std::to_string(pages));
        Img src, back, first;
        ASSERT_EQ(formac_image_alloc_pages(src.get(), 7, 5, pages, channels, t), 0);
        fillRandom(src.get(), static_cast<unsigned>(t * 100 + channels * 10 + pages));
        std::string p = path("rt.tif");
        ASSERT_EQ(formac_image_write(p.c_str(), src.get(), err, sizeof err), 0) << err;
        ASSERT_EQ(formac_image_read_flags(p.c_str(), back.get(), FORMAC_READ_ALPHA | FORMAC_READ_PAGES, err,
                                          sizeof err),
                  0)
            << err;
        EXPECT_TRUE(sameSamples(src.im, back.im));
        // Without the flags: the first page, alpha dropped.
        ASSERT_EQ(formac_image_read(p.c_str(), first.get(), err, sizeof err), 0) << err;
        EXPECT_EQ(first->pages, 1);
        int kept = channels == 2 || channels == 4 ? channels - 1 : channels;
        ASSERT_EQ(first->channels, kept);
        size_t es = formac_pixel_type_size(t);
        for (size_t i = 0; i < 35; ++i)
          EXPECT_EQ(std::memcmp(static_cast<unsigned char*>(first->data) + i * kept * es,
                                static_cast<unsigned char*>(src->data) + i * channels * es, kept * es),
                    0)
              << i;
      }
}

// A file libtiff writes on its own terms: tiled, LZW-compressed, 16-bit RGB.
TEST_F(RuntimeFormats, TiffTiledAndCompressedFromLibtiff) {
  std::string p = path("tiled.tif");
  const uint32_t w = 40, h = 20, tw = 16, th = 16;
  TIFF* t = TIFFOpen(p.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
  TIFFSetField(t, TIFFTAG_TILEWIDTH, tw);
  TIFFSetField(t, TIFFTAG_TILELENGTH, th);
  auto value = [](uint32_t x, uint32_t y, int c) { return static_cast<uint16_t>(x * 1000 + y * 7 + c * 20000); };
  std::vector<uint16_t> tile(tw * th * 3);
  for (uint32_t ty = 0; ty < h; ty += th)
    for (uint32_t tx = 0; tx < w; tx += tw) {
      for (uint32_t y = 0; y < th; ++y)
        for (uint32_t x = 0; x < tw; ++x)
          for (int c = 0; c < 3; ++c) tile[(y * tw + x) * 3 + c] = value(tx + x, ty + y, c);
      ASSERT_GE(TIFFWriteTile(t, tile.data(), tx, ty, 0, 0), 0);
    }
  TIFFClose(t);
  Img img;
  ASSERT_EQ(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0) << err;
  ASSERT_EQ(img->width, 40);
  ASSERT_EQ(img->height, 20);
  ASSERT_EQ(img->channels, 3);
  ASSERT_EQ(img->type, FORMAC_U16);
  const uint16_t* d = static_cast<const uint16_t*>(img->data);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(d[(y * w + x) * 3 + c], value(x, y, c)) << x << "," << y << "," << c;
}

TEST_F(RuntimeFormats, TiffUnsupportedLayoutsAreErrors) {
  std::string p = path("signed.tif");
  TIFF* t = TIFFOpen(p.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 4);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, 1);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_INT);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  int16_t row[4] = {-1, 2, -3, 4};
  TIFFWriteScanline(t, row, 0, 0);
  TIFFClose(t);
  EXPECT_NE(expectReadFails(p).find("unsupported TIFF: 16-bit signed samples"), std::string::npos) << err;

  // One row of 4 pixels with these tags, 8-bit unsigned unless they say.
  auto oneRow = [&](const std::string& file, uint16_t channels, uint16_t photometric, uint16_t planar) {
    TIFF* o = TIFFOpen(file.c_str(), "w");
    TIFFSetField(o, TIFFTAG_IMAGEWIDTH, 4);
    TIFFSetField(o, TIFFTAG_IMAGELENGTH, 1);
    TIFFSetField(o, TIFFTAG_SAMPLESPERPIXEL, channels);
    TIFFSetField(o, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(o, TIFFTAG_PHOTOMETRIC, photometric);
    TIFFSetField(o, TIFFTAG_PLANARCONFIG, planar);
    std::vector<uint8_t> px(4 * channels, 9);
    for (uint16_t c = 0; c < (planar == PLANARCONFIG_SEPARATE ? channels : 1); ++c)
      TIFFWriteScanline(o, px.data(), 0, c);
    TIFFClose(o);
  };
  oneRow(path("five.tif"), 5, PHOTOMETRIC_RGB, PLANARCONFIG_CONTIG);
  EXPECT_NE(expectReadFails(path("five.tif")).find("unsupported TIFF: 5 channels (formac reads 1 to 4)"),
            std::string::npos) << err;
  oneRow(path("white.tif"), 1, PHOTOMETRIC_MINISWHITE, PLANARCONFIG_CONTIG);
  EXPECT_NE(expectReadFails(path("white.tif")).find("unsupported TIFF: photometric interpretation 0 (formac reads "
                                                    "min-is-black gray and RGB)"),
            std::string::npos) << err;
  oneRow(path("planes.tif"), 3, PHOTOMETRIC_RGB, PLANARCONFIG_SEPARATE);
  EXPECT_NE(expectReadFails(path("planes.tif")).find("unsupported TIFF: separate colour planes are not supported"),
            std::string::npos) << err;

  // Pages of different sizes are no volume, but the first page alone reads.
  Img a, b, c;
  ASSERT_EQ(formac_image_alloc(a.get(), 4, 4, 1, FORMAC_U8), 0);
  std::string pa = path("a.tif"), pb = path("b.tif");
  ASSERT_EQ(formac_image_write(pa.c_str(), a.get(), err, sizeof err), 0) << err;
  TIFF* two = TIFFOpen(pb.c_str(), "w");
  for (uint32_t w : {4u, 5u}) {
    TIFFSetField(two, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(two, TIFFTAG_IMAGELENGTH, 1);
    TIFFSetField(two, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(two, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(two, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    uint8_t px[5] = {1, 2, 3, 4, 5};
    TIFFWriteScanline(two, px, 0, 0);
    TIFFWriteDirectory(two);
  }
  TIFFClose(two);
  EXPECT_NE(expectReadFails(pb, FORMAC_READ_PAGES).find("page 1 differs from page 0"), std::string::npos) << err;
  ASSERT_EQ(formac_image_read(pb.c_str(), c.get(), err, sizeof err), 0) << err;
  EXPECT_EQ(c->width, 4);
}

// JPEG is lossy: a picture of flat 8x8 blocks comes back exactly (their DC
// coefficients 8 (v - 128) are multiples of quality 95's step, 2), a smooth
// RGB ramp within a few levels.
TEST_F(RuntimeFormats, JpegRoundTrips) {
  Img gray, back;
  ASSERT_EQ(formac_image_alloc(gray.get(), 32, 16, 1, FORMAC_U8), 0);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 32; ++x) static_cast<uint8_t*>(gray->data)[y * 32 + x] = static_cast<uint8_t>(37 * (x / 8) + 91 * (y / 8));
  std::string p = path("gray.jpg");
  ASSERT_EQ(formac_image_write(p.c_str(), gray.get(), err, sizeof err), 0) << err;
  ASSERT_EQ(formac_image_read(p.c_str(), back.get(), err, sizeof err), 0) << err;
  EXPECT_TRUE(sameSamples(gray.im, back.im));

  Img rgb, rgbBack;
  ASSERT_EQ(formac_image_alloc(rgb.get(), 64, 48, 3, FORMAC_U8), 0);
  uint8_t* d = static_cast<uint8_t*>(rgb->data);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      d[(y * 64 + x) * 3] = static_cast<uint8_t>(x * 3);
      d[(y * 64 + x) * 3 + 1] = static_cast<uint8_t>(y * 4);
      d[(y * 64 + x) * 3 + 2] = static_cast<uint8_t>(200 - x - y);
    }
  std::string q = path("rgb.jpeg");
  ASSERT_EQ(formac_image_write(q.c_str(), rgb.get(), err, sizeof err), 0) << err;
  ASSERT_EQ(formac_image_read(q.c_str(), rgbBack.get(), err, sizeof err), 0) << err;
  ASSERT_EQ(rgbBack->channels, 3);
  ASSERT_EQ(rgbBack->width, 64);
  int worst = 0;
  for (size_t i = 0; i < 64 * 48 * 3; ++i)
    worst = std::max(worst, std::abs(d[i] - static_cast<uint8_t*>(rgbBack->data)[i]));
  EXPECT_LE(worst, 4);
  EXPECT_GT(readBytes(q).size(), 100u);
}

// Our PNG writer (libdeflate, Up filter) read back by libpng itself, for
// every channel count and both depths, several rows (the filter's rows above).
TEST_F(RuntimeFormats, PngWriterReadByLibpng) {
  const png_uint_32 formats[] = {PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
  for (formac_pixel_type t : {FORMAC_U8, FORMAC_U16})
    for (int channels = 1; channels <= 4; ++channels) {
      SCOPED_TRACE(std::to_string(channels) + " channels " + formac_pixel_type_name(t));
      Img src;
      ASSERT_EQ(formac_image_alloc(src.get(), 9, 6, channels, t), 0);
      fillRandom(src.get(), static_cast<unsigned>(channels + 10 * t));
      std::string p = path("w.png");
      ASSERT_EQ(formac_image_write(p.c_str(), src.get(), err, sizeof err), 0) << err;
      png_image pi{};
      pi.version = PNG_IMAGE_VERSION;
      ASSERT_NE(png_image_begin_read_from_file(&pi, p.c_str()), 0) << pi.message;
      pi.format = formats[channels - 1] | (t == FORMAC_U16 ? PNG_FORMAT_FLAG_LINEAR : 0);
      std::vector<unsigned char> got(PNG_IMAGE_SIZE(pi));
      ASSERT_NE(png_image_finish_read(&pi, nullptr, got.data(), 0, nullptr), 0) << pi.message;
      if (t == FORMAC_U8 && (channels == 1 || channels == 3)) {  // no alpha or gamma in the way: exact
        EXPECT_EQ(std::memcmp(got.data(), src->data, got.size()), 0);
      }
      Img back;  // and our own reader gets every sample back
      ASSERT_EQ(formac_image_read_flags(p.c_str(), back.get(), FORMAC_READ_ALPHA, err, sizeof err), 0) << err;
      EXPECT_TRUE(sameSamples(src.im, back.im));
    }
}

// The pieces of formac__zlib_chunks, joined, inflate (zlib) to the bytes:
// empty, tiny and large streams of random, repetitive and run-length
// content, cut into chunks of 1 byte to more than the stream, on 1 and 3
// threads. A piece that did not end byte-aligned and non-final, a wrong
// Adler-32 or a reference across chunks would fail here.
int fillFrom(void* ctx, size_t at, size_t n, unsigned char* out) {
  std::memcpy(out, static_cast<const unsigned char*>(ctx) + at, n);
  return 0;
}

TEST(ZlibChunks, JoinedPiecesInflateToTheBytes) {
  std::mt19937 rng(7);
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{5}, size_t{1000}, size_t{70000}, size_t{300001}})
    for (int content = 0; content < 3; ++content)
      for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, size_t{65536}, size_t{1} << 20})
        for (int threads : {1, 3}) {
          if (n / chunk > 20000) continue;
          SCOPED_TRACE("n " + std::to_string(n) + " content " + std::to_string(content) + " chunk " +
                       std::to_string(chunk) + " threads " + std::to_string(threads));
          std::vector<unsigned char> bytes(n);
          for (size_t i = 0; i < n; ++i)
            bytes[i] = static_cast<unsigned char>(content == 0   ? rng()
                                                  : content == 1 ? (i % 1500 < 700 ? i % 1500 : rng() % 4)
                                                                 : i / 5000);
          formac_piece* pieces = nullptr;
          size_t count = formac__zlib_chunks(n, chunk, threads, fillFrom, bytes.data(), &pieces);
          ASSERT_EQ(count, n ? (n + chunk - 1) / chunk : 1);
          std::vector<unsigned char> z;
          for (size_t c = 0; c < count; ++c) z.insert(z.end(), pieces[c].data, pieces[c].data + pieces[c].size);
          formac__free_pieces(pieces, count);
          std::vector<unsigned char> back(n + 1);
          uLongf got = static_cast<uLongf>(back.size());
          ASSERT_EQ(uncompress(back.data(), &got, z.data(), static_cast<uLong>(z.size())), Z_OK);
          ASSERT_EQ(got, n);
          EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), back.begin()));
          if (content == 2 && n > 100000 && chunk > 60000) {
            EXPECT_LT(z.size(), n / 50);  // runs compress
          }
        }
}

// Every PNG kind the writer makes (8/16-bit gray, gray+alpha, RGB, RGBA;
// 1x1, 1xN, Nx1, odd widths, 1501x1100) read back by libpng exactly,
// whole-stream and in chunks that end inside rows, some shorter than a row.
TEST_F(RuntimeFormats, PngWriterRoundTripsEveryKindInChunks) {
  const png_uint_32 formats[] = {PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
  const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {7, 5}, {33, 17}, {513, 300}, {1501, 1100}};
  for (formac_pixel_type t : {FORMAC_U8, FORMAC_U16})
    for (int channels = 1; channels <= 4; ++channels)
      for (const auto& wh : sizes)
        for (size_t chunk : {size_t{5}, size_t{97}, size_t{4099}, size_t{1} << 20}) {
          if (wh[0] * wh[1] > 10000 && chunk < 4000) continue;
          SCOPED_TRACE(std::to_string(channels) + " channels " + formac_pixel_type_name(t) + " " +
                       std::to_string(wh[0]) + "x" + std::to_string(wh[1]) + " chunk " + std::to_string(chunk));
          Img src;
          ASSERT_EQ(formac_image_alloc(src.get(), wh[0], wh[1], channels, t), 0);
          fillRandom(src.get(), static_cast<unsigned>(channels + 10 * t + wh[0]));
          size_t samples = formac_image_samples(src.get());
          for (size_t i = samples / 2; i < samples; ++i) {  // half repeats: matches, also across chunks
            if (t == FORMAC_U8) {
              static_cast<uint8_t*>(src->data)[i] = static_cast<uint8_t*>(src->data)[i % 50];
            } else {
              static_cast<uint16_t*>(src->data)[i] = static_cast<uint16_t*>(src->data)[i % 50];
            }
          }
          std::string p = path("c.png");
          FILE* f = std::fopen(p.c_str(), "wb");
          ASSERT_NE(f, nullptr);
          int r = formac__write_png_chunked(f, p.c_str(), src.get(), chunk, 2, err, sizeof err);
          std::fclose(f);
          ASSERT_EQ(r, 0) << err;
          png_image pi{};
          pi.version = PNG_IMAGE_VERSION;
          ASSERT_NE(png_image_begin_read_from_file(&pi, p.c_str()), 0) << pi.message;
          EXPECT_EQ(pi.width, static_cast<png_uint_32>(wh[0]));
          EXPECT_EQ(pi.height, static_cast<png_uint_32>(wh[1]));
          EXPECT_EQ(pi.format & ~PNG_FORMAT_FLAG_LINEAR,
                    formats[channels - 1]);  // the color type as written
          png_image_free(&pi);
          Img back;  // libpng's decoder underneath, every sample as stored
          ASSERT_EQ(formac_image_read_flags(p.c_str(), back.get(), FORMAC_READ_ALPHA, err, sizeof err), 0) << err;
          EXPECT_TRUE(sameSamples(src.im, back.im));
        }
}

TEST_F(RuntimeFormats, WriteRejectsWhatTheFormatCannotHold) {
  Img vol, rgba, f64;
  ASSERT_EQ(formac_image_alloc_pages(vol.get(), 3, 3, 2, 1, FORMAC_U8), 0);
  ASSERT_EQ(formac_image_alloc(rgba.get(), 3, 3, 4, FORMAC_U8), 0);
  ASSERT_EQ(formac_image_alloc(f64.get(), 3, 3, 1, FORMAC_F64), 0);
  struct {
    const char* file;
    formac_image* img;
    const char* message;
  } bad[] = {{"v.png", vol.get(), "the image has 2 pages; only TIFF stores more than one"},
             {"v.pfm", vol.get(), "the image has 2 pages"},
             {"a.jpg", rgba.get(), "JPEG stores u8 samples in 1 or 3 channels, image is u8 with 4"},
             {"d.tif", f64.get(), "TIFF is written with u8, u16 or f32 samples"}};
  for (auto& b : bad) {
    std::string p = path(b.file);
    EXPECT_NE(formac_image_write(p.c_str(), b.img, err, sizeof err), 0) << p;
    EXPECT_NE(std::string(err).find("'" + p + "': " + b.message), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(p)) << p;
  }
}

// Corrupt and truncated JPEG and TIFF files: an error naming the file.
TEST_F(RuntimeFormats, CorruptFilesAreErrors) {
  Img src;
  ASSERT_EQ(formac_image_alloc(src.get(), 64, 64, 3, FORMAC_U8), 0);
  fillRandom(src.get(), 5);
  std::string jpg = path("ok.jpg"), tif = path("ok.tif");
  ASSERT_EQ(formac_image_write(jpg.c_str(), src.get(), err, sizeof err), 0) << err;
  ASSERT_EQ(formac_image_write(tif.c_str(), src.get(), err, sizeof err), 0) << err;
  std::vector<unsigned char> j = readBytes(jpg), t = readBytes(tif);

  std::string p = path("cut.jpg");
  writeBytes(p, std::vector<unsigned char>(j.begin(), j.begin() + j.size() / 2));
  EXPECT_NE(expectReadFails(p).find("invalid JPEG file"), std::string::npos) << err;
  writeBytes(p, {0xFF, 0xD8, 0xFF});
  expectReadFails(p);
  std::vector<unsigned char> garbled = j;
  for (size_t i = 20; i < garbled.size(); i += 7) garbled[i] = static_cast<unsigned char>(garbled[i] * 31 + 1);
  writeBytes(p, garbled);
  expectReadFails(p);

  std::string q = path("cut.tif");
  writeBytes(q, std::vector<unsigned char>(t.begin(), t.begin() + t.size() / 2));
  expectReadFails(q);
  writeBytes(q, {'I', 'I', 42, 0});
  expectReadFails(q);
  writeBytes(q, {'I', 'I', 42, 0, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3});  // first page far outside the file
  expectReadFails(q);
  // Every prefix of a valid TIFF and JPEG: no crash, and an error or an image.
  for (const auto* file : {&j, &t})
    for (size_t n = 1; n < file->size(); n += 97) {
      writeBytes(q, std::vector<unsigned char>(file->begin(), file->begin() + static_cast<long>(n)));
      Img img;
      if (formac_image_read(q.c_str(), img.get(), err, sizeof err) != 0) {
        EXPECT_NE(std::string(err).find("'" + q + "'"), std::string::npos) << err;
      }
    }
}

}  // namespace
