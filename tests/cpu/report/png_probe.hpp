#pragma once
// Just enough PNG decoding (zlib, the five scanline filters, 8-bit RGB/RGBA/grey) to tell a
// rendered screenshot from a blank one: its size, how many pixels differ from the background
// (the top-left pixel) and how many distinct colours it has.
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace ako::report::testing {

struct PngStats {
  bool ok = false;
  std::string error;
  uint32_t width = 0, height = 0;
  uint64_t non_background = 0;   // pixels whose colour differs from the top-left pixel's
  size_t colours = 0;            // distinct colours (counted up to 4096)
};

inline uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

inline PngStats probe_png(const std::string& bytes) {
  PngStats s;
  const auto* d = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 33 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    s.error = "not a PNG";
    return s;
  }
  int depth = 0, colour_type = 0, interlace = 0;
  std::string idat;
  for (size_t pos = 8; pos + 12 <= bytes.size();) {
    const uint32_t len = be32(d + pos);
    const std::string type = bytes.substr(pos + 4, 4);
    if (pos + 12 + len > bytes.size()) break;
    const unsigned char* body = d + pos + 8;
    if (type == "IHDR") {
      s.width = be32(body);
      s.height = be32(body + 4);
      depth = body[8];
      colour_type = body[9];
      interlace = body[12];
    } else if (type == "IDAT") {
      idat.append(reinterpret_cast<const char*>(body), len);
    }
    pos += 12 + len;
  }
  const int channels = colour_type == 2 ? 3 : colour_type == 6 ? 4 : colour_type == 0 ? 1 : colour_type == 4 ? 2 : 0;
  if (depth != 8 || channels == 0 || interlace != 0 || s.width == 0 || s.height == 0) {
    s.error = "unsupported PNG (depth " + std::to_string(depth) + ", colour type " + std::to_string(colour_type) + ")";
    return s;
  }
  const size_t stride = size_t(s.width) * channels;
  std::vector<unsigned char> raw((stride + 1) * s.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_len != raw.size()) {
    s.error = "IDAT does not inflate to the image size";
    return s;
  }
  std::vector<unsigned char> img(stride * s.height), prev(stride, 0);
  for (uint32_t y = 0; y < s.height; ++y) {
    const unsigned char filter = raw[y * (stride + 1)];
    const unsigned char* in = &raw[y * (stride + 1) + 1];
    unsigned char* out = &img[y * stride];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= size_t(channels) ? out[i - channels] : 0, b = prev[i],
                c = i >= size_t(channels) ? prev[i - channels] : 0;
      int v = in[i];
      switch (filter) {
        case 1: v += a; break;
        case 2: v += b; break;
        case 3: v += (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: break;
      }
      out[i] = static_cast<unsigned char>(v);
    }
    prev.assign(out, out + stride);
  }
  auto colour = [&](size_t px) {
    uint32_t v = 0;
    for (int ch = 0; ch < channels; ++ch) v = (v << 8) | img[px * channels + ch];
    return v;
  };
  const uint32_t background = colour(0);
  std::set<uint32_t> seen;
  for (size_t px = 0; px < size_t(s.width) * s.height; ++px) {
    const uint32_t v = colour(px);
    if (v != background) ++s.non_background;
    if (seen.size() < 4096) seen.insert(v);
  }
  s.colours = seen.size();
  s.ok = true;
  return s;
}

}  // namespace ako::report::testing
