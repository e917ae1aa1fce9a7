// Unit tests for the formac runtime image library (runtime/formac_image.h)
// and timers (runtime/formac_timer.h). Links formac_runtime and
// GTest::gtest_main.
#include <gtest/gtest.h>

#include "formac_image.h"
#include "formac_timer.h"

#include <png.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Owns a formac_image and frees it.
struct Img {
    formac_image im{};
    Img() = default;
    Img(const Img&) = delete;
    Img& operator=(const Img&) = delete;
    ~Img() { formac_image_free(&im); }
    formac_image* operator->() { return &im; }
    formac_image* get() { return &im; }
};

std::vector<unsigned char> read_bytes(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const fs::path& p, const void* data, size_t n) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

void write_bytes(const fs::path& p, const std::vector<unsigned char>& v) {
    write_bytes(p, v.data(), v.size());
}

void write_text(const fs::path& p, const std::string& s) {
    write_bytes(p, s.data(), s.size());
}

// Fills img with random bit patterns that exercise the full range of the
// type (for f32: also negatives, denormals, infinities, NaN, -0).
void fill_random(formac_image* img, std::mt19937& rng) {
    size_t n = formac_image_samples(img);
    switch (img->type) {
    case FORMAC_U8:
        for (size_t i = 0; i < n; i++)
            static_cast<uint8_t*>(img->data)[i] = static_cast<uint8_t>(rng());
        break;
    case FORMAC_U16:
        for (size_t i = 0; i < n; i++)
            static_cast<uint16_t*>(img->data)[i] = static_cast<uint16_t>(rng());
        break;
    case FORMAC_I16:
        for (size_t i = 0; i < n; i++)
            static_cast<int16_t*>(img->data)[i] = static_cast<int16_t>(rng());
        break;
    case FORMAC_I32:
        for (size_t i = 0; i < n; i++)
            static_cast<int32_t*>(img->data)[i] = static_cast<int32_t>(rng());
        break;
    case FORMAC_I64:
        for (size_t i = 0; i < n; i++)
            static_cast<int64_t*>(img->data)[i] = static_cast<int64_t>(rng()) << 20;
        break;
    case FORMAC_F32: {
        std::uniform_real_distribution<float> d(-1000.f, 1000.f);
        const float specials[] = {0.f, -0.f, 1e-40f, -3.4e38f,
                                  std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN()};
        for (size_t i = 0; i < n; i++) {
            float v = d(rng);
            if (rng() % 8 == 0) v = specials[rng() % 6];
            static_cast<float*>(img->data)[i] = v;
        }
        break;
    }
    case FORMAC_F64: {
        std::uniform_real_distribution<double> d(-1e6, 1e6);
        for (size_t i = 0; i < n; i++) static_cast<double*>(img->data)[i] = d(rng);
        break;
    }
    }
}

bool same_image(const formac_image& a, const formac_image& b) {
    return a.width == b.width && a.height == b.height &&
           a.channels == b.channels && a.type == b.type &&
           std::memcmp(a.data, b.data, formac_image_bytes(&a)) == 0;
}

// Standard CRC-32 (as used by PNG chunks).
uint32_t crc32_bytes(const unsigned char* p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

void put_be32(unsigned char* p, uint32_t v) {
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
}

class RuntimeImage : public ::testing::Test {
protected:
    fs::path dir;
    char err[512] = {0};

    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir = fs::temp_directory_path() /
              ("formac_runtime_test_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string path(const std::string& name) const { return (dir / name).string(); }

    // Expects reading `p` to fail with a message naming the file; returns it.
    std::string expect_read_fails(const std::string& p) {
        Img img;
        err[0] = '\0';
        EXPECT_NE(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0) << p;
        EXPECT_NE(std::string(err).find("'" + p + "'"), std::string::npos)
            << "message does not name the file: " << err;
        EXPECT_EQ(img->data, nullptr);
        EXPECT_EQ(img->width, 0);
        return err;
    }
};

// ---------------------------------------------------------------- round trips

TEST_F(RuntimeImage, RoundTripEveryFormatTypeAndSize) {
    struct Case {
        const char* ext;
        formac_pixel_type type;
        int channels;
    };
    const Case cases[] = {
        {"png", FORMAC_U8, 1},  {"png", FORMAC_U8, 3},  {"png", FORMAC_U16, 1},
        {"png", FORMAC_U16, 3}, {"pgm", FORMAC_U8, 1},  {"pgm", FORMAC_U16, 1},
        {"ppm", FORMAC_U8, 3},  {"ppm", FORMAC_U16, 3}, {"pnm", FORMAC_U8, 1},
        {"pnm", FORMAC_U16, 3}, {"pfm", FORMAC_F32, 1}, {"pfm", FORMAC_F32, 3},
        {"PNG", FORMAC_U8, 3},
    };
    const int sizes[][2] = {{1, 1}, {7, 3}, {13, 17}, {3, 7}, {64, 1}, {1, 33}};
    std::mt19937 rng(12345);
    for (const Case& c : cases) {
        for (const auto& s : sizes) {
            SCOPED_TRACE(std::string(c.ext) + " " + formac_pixel_type_name(c.type) +
                         " c=" + std::to_string(c.channels) + " " +
                         std::to_string(s[0]) + "x" + std::to_string(s[1]));
            Img src, back;
            ASSERT_EQ(formac_image_alloc(src.get(), s[0], s[1], c.channels, c.type), 0);
            fill_random(src.get(), rng);
            std::string p = path("rt_" + std::to_string(s[0]) + "x" +
                                 std::to_string(s[1]) + "." + c.ext);
            ASSERT_EQ(formac_image_write(p.c_str(), src.get(), err, sizeof err), 0) << err;
            ASSERT_EQ(formac_image_read(p.c_str(), back.get(), err, sizeof err), 0) << err;
            EXPECT_TRUE(same_image(src.im, back.im));
        }
    }
}

TEST_F(RuntimeImage, NetpbmHeaderIsStandard) {
    Img img;
    ASSERT_EQ(formac_image_alloc(img.get(), 2, 1, 1, FORMAC_U16), 0);
    static_cast<uint16_t*>(img->data)[0] = 0x0102;
    static_cast<uint16_t*>(img->data)[1] = 0xfffe;
    std::string p = path("a.pgm");
    ASSERT_EQ(formac_image_write(p.c_str(), img.get(), err, sizeof err), 0) << err;
    std::string expect = "P5\n2 1\n65535\n\x01\x02\xff\xfe";
    auto bytes = read_bytes(p);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), expect);
}

TEST_F(RuntimeImage, PfmIsStoredBottomToTop) {
    Img img;
    ASSERT_EQ(formac_image_alloc(img.get(), 2, 2, 1, FORMAC_F32), 0);
    float* d = static_cast<float*>(img->data);
    d[0] = 1.f; d[1] = 2.f;  // top row
    d[2] = 3.f; d[3] = 4.f;  // bottom row
    std::string p = path("two_rows.pfm");
    ASSERT_EQ(formac_image_write(p.c_str(), img.get(), err, sizeof err), 0) << err;

    const std::string header = "Pf\n2 2\n-1.0\n";  // negative scale: little-endian
    std::vector<unsigned char> expect(header.begin(), header.end());
    for (float v : {3.f, 4.f, 1.f, 2.f}) {  // bottom row first
        uint32_t u;
        std::memcpy(&u, &v, 4);
        for (int k = 0; k < 4; k++) expect.push_back(static_cast<unsigned char>(u >> (8 * k)));
    }
    EXPECT_EQ(read_bytes(p), expect);
}

TEST_F(RuntimeImage, PfmBigEndianAndThreeChannels) {
    // A big-endian (positive scale) RGB PFM, 1 wide, 2 high, made by hand.
    std::string s = "PF\n1 2\n1.0\n";
    std::vector<unsigned char> bytes(s.begin(), s.end());
    const float file_order[] = {10.f, 20.f, 30.f,   // bottom pixel
                                -1.5f, 0.25f, 7.f}; // top pixel
    for (float v : file_order) {
        uint32_t u;
        std::memcpy(&u, &v, 4);
        for (int k = 3; k >= 0; k--) bytes.push_back(static_cast<unsigned char>(u >> (8 * k)));
    }
    std::string p = path("be.pfm");
    write_bytes(p, bytes);
    Img img;
    ASSERT_EQ(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(img->width, 1);
    ASSERT_EQ(img->height, 2);
    ASSERT_EQ(img->channels, 3);
    ASSERT_EQ(img->type, FORMAC_F32);
    const float* d = static_cast<const float*>(img->data);
    const float expect[] = {-1.5f, 0.25f, 7.f, 10.f, 20.f, 30.f};
    for (int i = 0; i < 6; i++) EXPECT_EQ(d[i], expect[i]) << i;
}

TEST_F(RuntimeImage, AsciiPgmAndPpm) {
    std::string p = path("a.pgm");
    write_text(p, "P2\n# a comment\n3 2 # trailing comment\n65535\n0 1 2\n65535 40000\n7\n");
    Img g;
    ASSERT_EQ(formac_image_read(p.c_str(), g.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(g->type, FORMAC_U16);
    ASSERT_EQ(g->channels, 1);
    ASSERT_EQ(g->width, 3);
    ASSERT_EQ(g->height, 2);
    const uint16_t eg[] = {0, 1, 2, 65535, 40000, 7};
    for (int i = 0; i < 6; i++) EXPECT_EQ(static_cast<uint16_t*>(g->data)[i], eg[i]);

    std::string q = path("a.ppm");
    write_text(q, "P3 2 1 255 1 2 3 253 254 255");
    Img c;
    ASSERT_EQ(formac_image_read(q.c_str(), c.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(c->type, FORMAC_U8);
    ASSERT_EQ(c->channels, 3);
    const uint8_t ec[] = {1, 2, 3, 253, 254, 255};
    for (int i = 0; i < 6; i++) EXPECT_EQ(static_cast<uint8_t*>(c->data)[i], ec[i]);

    write_text(p, "P2 2 1 100 50 101");  // sample above maxval
    std::string m = expect_read_fails(p);
    EXPECT_NE(m.find("maxval"), std::string::npos) << m;
}

TEST_F(RuntimeImage, PgmWithSmallMaxvalKeepsValues) {
    std::string p = path("m.pgm");
    std::string s = "P5\n3 1\n15\n";
    s += std::string("\x00\x07\x0f", 3);
    write_text(p, s);
    Img img;
    ASSERT_EQ(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(img->type, FORMAC_U8);
    EXPECT_EQ(static_cast<uint8_t*>(img->data)[1], 7);
    EXPECT_EQ(static_cast<uint8_t*>(img->data)[2], 15);
}

// ------------------------------------------------- PNG variants (via libpng)

// Writes a PNG with libpng's simplified API.
void write_png_simplified(const std::string& p, int w, int h, png_uint_32 format,
                          const void* pixels, const void* colormap = nullptr,
                          int entries = 0) {
    png_image pi;
    std::memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = static_cast<png_uint_32>(w);
    pi.height = static_cast<png_uint_32>(h);
    pi.format = format;
    pi.colormap_entries = static_cast<png_uint_32>(entries);
    ASSERT_NE(png_image_write_to_file(&pi, p.c_str(), 0, pixels, 0, colormap), 0)
        << pi.message;
}

TEST_F(RuntimeImage, PngGrayAlphaAndRgbaDropAlpha) {
    const int w = 5, h = 3;
    std::mt19937 rng(7);
    std::vector<uint8_t> ga(w * h * 2), rgba(w * h * 4);
    for (auto& v : ga) v = static_cast<uint8_t>(rng());
    for (auto& v : rgba) v = static_cast<uint8_t>(rng());
    // Simplified API writes alpha as given for 8-bit sRGB formats.
    std::string pga = path("ga.png"), prgba = path("rgba.png");
    write_png_simplified(pga, w, h, PNG_FORMAT_GA, ga.data());
    write_png_simplified(prgba, w, h, PNG_FORMAT_RGBA, rgba.data());

    Img a, b;
    ASSERT_EQ(formac_image_read(pga.c_str(), a.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(a->channels, 1);
    ASSERT_EQ(a->type, FORMAC_U8);
    for (int i = 0; i < w * h; i++)
        EXPECT_EQ(static_cast<uint8_t*>(a->data)[i], ga[2 * i]) << i;

    ASSERT_EQ(formac_image_read(prgba.c_str(), b.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(b->channels, 3);
    for (int i = 0; i < w * h; i++)
        for (int c = 0; c < 3; c++)
            EXPECT_EQ(static_cast<uint8_t*>(b->data)[3 * i + c], rgba[4 * i + c]);

    // Our own writer: 4 channels in, 3 back.
    Img src, back;
    ASSERT_EQ(formac_image_alloc(src.get(), 4, 4, 4, FORMAC_U16), 0);
    fill_random(src.get(), rng);
    std::string p = path("ours_rgba16.png");
    ASSERT_EQ(formac_image_write(p.c_str(), src.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(formac_image_read(p.c_str(), back.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(back->channels, 3);
    ASSERT_EQ(back->type, FORMAC_U16);
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 3; c++)
            EXPECT_EQ(static_cast<uint16_t*>(back->data)[3 * i + c],
                      static_cast<uint16_t*>(src->data)[4 * i + c]);
}

TEST_F(RuntimeImage, PngPaletteIsExpanded) {
    const int w = 7, h = 3;
    // 4 entries -> a 2-bit palette PNG; the RGBA colormap adds a tRNS chunk.
    const uint8_t rgb_map[4 * 3] = {0, 0, 0, 255, 0, 0, 10, 200, 30, 255, 255, 255};
    const uint8_t rgba_map[4 * 4] = {0, 0, 0, 0, 255, 0, 0, 128, 10, 200, 30, 255,
                                     1, 2, 3, 255};
    std::vector<uint8_t> idx(w * h);
    for (int i = 0; i < w * h; i++) idx[i] = static_cast<uint8_t>((i * 7 + i / 3) % 4);
    for (int with_alpha = 0; with_alpha < 2; with_alpha++) {
        SCOPED_TRACE(with_alpha ? "rgba palette" : "rgb palette");
        std::string p = path(with_alpha ? "pal_a.png" : "pal.png");
        write_png_simplified(p, w, h,
                             with_alpha ? PNG_FORMAT_RGBA_COLORMAP : PNG_FORMAT_RGB_COLORMAP,
                             idx.data(), with_alpha ? (const void*)rgba_map : rgb_map, 4);
        Img img;
        ASSERT_EQ(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0) << err;
        ASSERT_EQ(img->channels, 3);
        ASSERT_EQ(img->type, FORMAC_U8);
        ASSERT_EQ(img->width, w);
        ASSERT_EQ(img->height, h);
        for (int i = 0; i < w * h; i++)
            for (int c = 0; c < 3; c++) {
                uint8_t want = with_alpha ? rgba_map[4 * idx[i] + c] : rgb_map[3 * idx[i] + c];
                EXPECT_EQ(static_cast<uint8_t*>(img->data)[3 * i + c], want) << i;
            }
    }
}

TEST_F(RuntimeImage, Png16BitFromLibpngAndOurs8BitReadByLibpng) {
    // 16-bit gray written by libpng: we must return the same host-order values.
    const int w = 6, h = 2;
    std::vector<uint16_t> px(w * h);
    std::mt19937 rng(3);
    for (auto& v : px) v = static_cast<uint16_t>(rng());
    std::string p = path("gray16.png");
    write_png_simplified(p, w, h, PNG_FORMAT_LINEAR_Y, px.data());
    Img img;
    ASSERT_EQ(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0) << err;
    ASSERT_EQ(img->type, FORMAC_U16);
    ASSERT_EQ(img->channels, 1);
    for (int i = 0; i < w * h; i++) EXPECT_EQ(static_cast<uint16_t*>(img->data)[i], px[i]);

    // Our 8-bit RGB PNG, read back by libpng's own reader.
    Img src;
    ASSERT_EQ(formac_image_alloc(src.get(), 13, 17, 3, FORMAC_U8), 0);
    fill_random(src.get(), rng);
    std::string q = path("ours.png");
    ASSERT_EQ(formac_image_write(q.c_str(), src.get(), err, sizeof err), 0) << err;
    png_image pi;
    std::memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    ASSERT_NE(png_image_begin_read_from_file(&pi, q.c_str()), 0) << pi.message;
    EXPECT_EQ(pi.width, 13u);
    EXPECT_EQ(pi.height, 17u);
    pi.format = PNG_FORMAT_RGB;
    std::vector<uint8_t> buf(PNG_IMAGE_SIZE(pi));
    ASSERT_NE(png_image_finish_read(&pi, nullptr, buf.data(), 0, nullptr), 0) << pi.message;
    EXPECT_EQ(std::memcmp(buf.data(), src->data, buf.size()), 0);
}

TEST_F(RuntimeImage, ExampleDataPhotoIfPresent) {
    // The demo photo shipped in examples/data (path relative to the source
    // tree; skipped when the test runs elsewhere).
    fs::path photo = fs::path(__FILE__).parent_path() / ".." / ".." / "examples" / "data" /
                     "camera.png";
    if (!fs::exists(photo)) GTEST_SKIP() << "no " << photo;
    Img img;
    ASSERT_EQ(formac_image_read(photo.string().c_str(), img.get(), err, sizeof err), 0) << err;
    EXPECT_EQ(img->width, 512);
    EXPECT_EQ(img->height, 512);
    EXPECT_EQ(img->channels, 1);
    EXPECT_EQ(img->type, FORMAC_U8);
}

// ---------------------------------------------------------------- conversion

TEST_F(RuntimeImage, ConvertRoundsAndSaturates) {
    Img in, out;
    ASSERT_EQ(formac_image_alloc(in.get(), 9, 1, 1, FORMAC_F64), 0);
    const double v[] = {-3.7, 0.49, 0.5, 1.5, 2.5, 254.5, 300.0, std::nan(""), -0.5};
    std::memcpy(in->data, v, sizeof v);
    ASSERT_EQ(formac_image_convert(in.get(), out.get(), FORMAC_U8, 1.0), 0);
    const uint8_t e8[] = {0, 0, 1, 2, 3, 255, 255, 0, 0};
    for (int i = 0; i < 9; i++) EXPECT_EQ(static_cast<uint8_t*>(out->data)[i], e8[i]) << i;

    Img o16;
    ASSERT_EQ(formac_image_convert(in.get(), o16.get(), FORMAC_I16, 200.0), 0);
    const int16_t e16[] = {-740, 98, 100, 300, 500, 32767, 32767, 0, -100};
    for (int i = 0; i < 9; i++) EXPECT_EQ(static_cast<int16_t*>(o16->data)[i], e16[i]) << i;

    Img o32;
    ASSERT_EQ(formac_image_convert(in.get(), o32.get(), FORMAC_I32, -1e10), 0);
    EXPECT_EQ(static_cast<int32_t*>(o32->data)[0], 2147483647);
    EXPECT_EQ(static_cast<int32_t*>(o32->data)[6], -2147483647 - 1);
}

TEST_F(RuntimeImage, ConvertU8ToF32AndBackIsExact) {
    Img in, f, back;
    ASSERT_EQ(formac_image_alloc(in.get(), 16, 16, 1, FORMAC_U8), 0);
    for (int i = 0; i < 256; i++) static_cast<uint8_t*>(in->data)[i] = static_cast<uint8_t>(i);
    ASSERT_EQ(formac_image_convert(in.get(), f.get(), FORMAC_F32, 1.0 / 255.0), 0);
    EXPECT_EQ(f->type, FORMAC_F32);
    EXPECT_FLOAT_EQ(static_cast<float*>(f->data)[255], 1.0f);
    EXPECT_FLOAT_EQ(static_cast<float*>(f->data)[51], 0.2f);
    ASSERT_EQ(formac_image_convert(f.get(), back.get(), FORMAC_U8, 255.0), 0);
    EXPECT_TRUE(same_image(in.im, back.im));

    // In place (out == in), u8 -> u16 scaled by 257 maps 255 to 65535.
    ASSERT_EQ(formac_image_convert(in.get(), in.get(), FORMAC_U16, 257.0), 0);
    EXPECT_EQ(in->type, FORMAC_U16);
    EXPECT_EQ(static_cast<uint16_t*>(in->data)[255], 65535);
    EXPECT_EQ(static_cast<uint16_t*>(in->data)[1], 257);
}

TEST_F(RuntimeImage, AllocRejectsBadSizes) {
    Img img;
    EXPECT_NE(formac_image_alloc(img.get(), 0, 5, 1, FORMAC_U8), 0);
    EXPECT_NE(formac_image_alloc(img.get(), 5, -1, 1, FORMAC_U8), 0);
    EXPECT_NE(formac_image_alloc(img.get(), 5, 5, 0, FORMAC_U8), 0);
    EXPECT_NE(formac_image_alloc(img.get(), 65536, 65536, 1, FORMAC_U8), 0);  // 2^32 samples
    EXPECT_NE(formac_image_alloc(img.get(), 2147483647, 2147483647, 2147483647, FORMAC_F64), 0);
    EXPECT_NE(formac_image_alloc(img.get(), 1, 1, 1, static_cast<formac_pixel_type>(99)), 0);
    EXPECT_EQ(img->data, nullptr);
    ASSERT_EQ(formac_image_alloc(img.get(), 1, 1, 1, FORMAC_F64), 0);
    EXPECT_EQ(static_cast<double*>(img->data)[0], 0.0);
    formac_image_free(img.get());
    formac_image_free(img.get());  // double free of a zeroed struct is fine
    formac_image_free(nullptr);
}

// ---------------------------------------------------------------- errors

TEST_F(RuntimeImage, MissingFile) {
    std::string m = expect_read_fails(path("does_not_exist.png"));
    EXPECT_NE(m.find("cannot open"), std::string::npos) << m;
    EXPECT_NE(m.find("No such file or directory"), std::string::npos) << m;
}

TEST_F(RuntimeImage, EmptyFile) {
    std::string p = path("empty.pgm");
    write_text(p, "");
    std::string m = expect_read_fails(p);
    EXPECT_NE(m.find("empty"), std::string::npos) << m;
}

TEST_F(RuntimeImage, GarbageFile) {
    std::string p = path("garbage.png");
    std::mt19937 rng(1);
    std::vector<unsigned char> junk(1000);
    for (auto& b : junk) b = static_cast<unsigned char>(rng());
    junk[0] = 'x';
    write_bytes(p, junk);
    std::string m = expect_read_fails(p);
    EXPECT_NE(m.find("not a PNG/JPEG/TIFF/PGM/PPM/PFM file"), std::string::npos) << m;

    write_text(p, "P5garbage");
    expect_read_fails(p);
    write_text(p, "P4\n1 1\n\x01");  // PBM is not supported
    m = expect_read_fails(p);
    EXPECT_NE(m.find("unsupported"), std::string::npos) << m;
}

TEST_F(RuntimeImage, ReadingADirectoryFails) {
    std::string p = dir.string();
    Img img;
    EXPECT_NE(formac_image_read(p.c_str(), img.get(), err, sizeof err), 0);
    EXPECT_NE(std::string(err).find(p), std::string::npos) << err;
}

TEST_F(RuntimeImage, TruncatedPngAtEveryLength) {
    std::mt19937 rng(5);
    for (formac_pixel_type t : {FORMAC_U8, FORMAC_U16}) {
        Img src;
        ASSERT_EQ(formac_image_alloc(src.get(), 13, 17, 3, t), 0);
        fill_random(src.get(), rng);
        std::string good = path("good.png");
        ASSERT_EQ(formac_image_write(good.c_str(), src.get(), err, sizeof err), 0) << err;
        auto bytes = read_bytes(good);
        ASSERT_GT(bytes.size(), 100u);
        std::string p = path("trunc.png");
        for (size_t len = 0; len < bytes.size(); len++) {
            SCOPED_TRACE("length " + std::to_string(len));
            write_bytes(p, bytes.data(), len);
            std::string m = expect_read_fails(p);
            if (len >= 8) {
                EXPECT_NE(m.find("truncated"), std::string::npos) << m;
            }
        }
    }
}

TEST_F(RuntimeImage, TruncatedPgmPpmPfm) {
    std::mt19937 rng(9);
    const std::pair<const char*, formac_pixel_type> kinds[] = {
        {"pgm", FORMAC_U8}, {"pgm", FORMAC_U16}, {"ppm", FORMAC_U8}, {"pfm", FORMAC_F32}};
    for (const auto& k : kinds) {
        SCOPED_TRACE(k.first);
        Img src;
        int ch = std::string(k.first) == "ppm" ? 3 : 1;
        ASSERT_EQ(formac_image_alloc(src.get(), 13, 17, ch, k.second), 0);
        fill_random(src.get(), rng);
        std::string good = path(std::string("good.") + k.first);
        ASSERT_EQ(formac_image_write(good.c_str(), src.get(), err, sizeof err), 0) << err;
        auto bytes = read_bytes(good);
        std::string p = path(std::string("trunc.") + k.first);
        for (size_t len : {size_t(1), size_t(2), size_t(5), size_t(9), bytes.size() / 2,
                           bytes.size() - 1}) {
            SCOPED_TRACE("length " + std::to_string(len));
            write_bytes(p, bytes.data(), len);
            std::string m = expect_read_fails(p);
            if (len >= 2) {
                EXPECT_NE(m.find("truncated"), std::string::npos) << m;
            }
        }
    }
}

TEST_F(RuntimeImage, HugeDimensionsAreRejectedWithoutAllocating) {
    std::string p = path("huge.pgm");
    write_text(p, "P5\n100000 100000\n255\nabc");  // 10^10 samples > 2^31
    std::string m = expect_read_fails(p);
    EXPECT_NE(m.find("too large"), std::string::npos) << m;

    write_text(p, "P5\n40000 40000\n65535\nabc");  // fits the cap, file is tiny
    m = expect_read_fails(p);
    EXPECT_NE(m.find("truncated"), std::string::npos) << m;

    write_text(p, "P5\n99999999999999999999999 1\n255\nabc");  // overflows any int
    m = expect_read_fails(p);
    EXPECT_NE(m.find("too large"), std::string::npos) << m;

    write_text(p, "P5\n0 5\n255\n");
    expect_read_fails(p);
    write_text(p, "P5\n5 5\n70000\n");
    m = expect_read_fails(p);
    EXPECT_NE(m.find("maxval"), std::string::npos) << m;

    std::string q = path("huge.pfm");
    write_text(q, "PF\n2000000000 2000000000\n-1.0\n");
    m = expect_read_fails(q);
    EXPECT_NE(m.find("too large"), std::string::npos) << m;
    write_text(q, "Pf\n2 2\nabc\n");
    m = expect_read_fails(q);
    EXPECT_NE(m.find("scale"), std::string::npos) << m;

    // A PNG whose IHDR (with a valid CRC) claims 100000 x 100000.
    Img src;
    ASSERT_EQ(formac_image_alloc(src.get(), 4, 4, 1, FORMAC_U8), 0);
    std::string good = path("small.png");
    ASSERT_EQ(formac_image_write(good.c_str(), src.get(), err, sizeof err), 0) << err;
    auto bytes = read_bytes(good);
    ASSERT_EQ(std::memcmp(&bytes[12], "IHDR", 4), 0);
    put_be32(&bytes[16], 100000);
    put_be32(&bytes[20], 100000);
    put_be32(&bytes[29], crc32_bytes(&bytes[12], 17));
    std::string r = path("huge.png");
    write_bytes(r, bytes);
    m = expect_read_fails(r);
    EXPECT_NE(m.find("too large"), std::string::npos) << m;
}

TEST_F(RuntimeImage, CorruptPngData) {
    Img src;
    ASSERT_EQ(formac_image_alloc(src.get(), 13, 17, 1, FORMAC_U8), 0);
    std::mt19937 rng(11);
    fill_random(src.get(), rng);
    std::string p = path("corrupt.png");
    ASSERT_EQ(formac_image_write(p.c_str(), src.get(), err, sizeof err), 0) << err;
    auto bytes = read_bytes(p);
    bytes[bytes.size() / 2] ^= 0x5a;  // inside IDAT: CRC mismatch
    write_bytes(p, bytes);
    std::string m = expect_read_fails(p);
    EXPECT_NE(m.find("PNG"), std::string::npos) << m;
}

TEST_F(RuntimeImage, UnwritableOutputPath) {
    Img img;
    ASSERT_EQ(formac_image_alloc(img.get(), 3, 3, 1, FORMAC_U8), 0);
    for (const char* name : {"out.png", "out.pgm"}) {
        std::string p = (dir / "no_such_dir" / name).string();
        EXPECT_NE(formac_image_write(p.c_str(), img.get(), err, sizeof err), 0);
        std::string m = err;
        EXPECT_NE(m.find("'" + p + "'"), std::string::npos) << m;
        EXPECT_NE(m.find("No such file or directory"), std::string::npos) << m;
    }
    Img f;
    ASSERT_EQ(formac_image_alloc(f.get(), 3, 3, 1, FORMAC_F32), 0);
    std::string p = (dir / "no_such_dir" / "out.pfm").string();
    EXPECT_NE(formac_image_write(p.c_str(), f.get(), err, sizeof err), 0);
    EXPECT_NE(std::string(err).find("'" + p + "'"), std::string::npos) << err;
}

TEST_F(RuntimeImage, WriteRejectsUnsupportedCombinations) {
    Img f, u3;
    ASSERT_EQ(formac_image_alloc(f.get(), 3, 3, 1, FORMAC_F32), 0);
    ASSERT_EQ(formac_image_alloc(u3.get(), 3, 3, 3, FORMAC_U8), 0);
    struct {
        std::string file;
        formac_image* img;
    } bad[] = {{"a.png", f.get()}, {"a.pgm", u3.get()}, {"a.pfm", u3.get()},
               {"a.jpg", f.get()}, {"noext", u3.get()}};
    for (auto& b : bad) {
        std::string p = path(b.file);
        EXPECT_NE(formac_image_write(p.c_str(), b.img, err, sizeof err), 0) << p;
        EXPECT_NE(std::string(err).find("'" + p + "'"), std::string::npos) << err;
        EXPECT_FALSE(fs::exists(p)) << p;
    }
    formac_image empty{};
    std::string p = path("e.png");
    EXPECT_NE(formac_image_write(p.c_str(), &empty, err, sizeof err), 0);
    EXPECT_NE(std::string(err).find(p), std::string::npos) << err;
}

// ---------------------------------------------------------------- timer

TEST(RuntimeTimer, MonotonicAndMedian) {
    double a = formac_now_seconds(), b = formac_now_seconds();
    EXPECT_GT(a, 0.0);
    EXPECT_GE(b, a);

    const double odd[] = {5.0, 1.0, 3.0};
    EXPECT_EQ(formac_median(odd, 3), 3.0);
    EXPECT_EQ(odd[0], 5.0);  // input untouched
    const double even[] = {4.0, 1.0, 3.0, 2.0};
    EXPECT_EQ(formac_median(even, 4), 2.5);
    EXPECT_TRUE(std::isnan(formac_median(even, 0)));
    std::vector<double> big(1001);
    for (size_t i = 0; i < big.size(); i++) big[i] = static_cast<double>((i * 7919) % 1001);
    EXPECT_EQ(formac_median(big.data(), big.size()), 500.0);
    EXPECT_EQ(formac_median_inplace(big.data(), big.size()), 500.0);
    EXPECT_EQ(big[0], 0.0);  // sorted
}

}  // namespace
