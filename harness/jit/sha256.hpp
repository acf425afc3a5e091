#pragma once
// Incremental SHA-256 over OpenSSL's EVP interface (ako_base links libcrypto).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace ako::jit {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view bytes);
  // A length-prefixed field, so that ("ab","c") and ("a","bc") never hash alike.
  void field(std::string_view tag, std::string_view bytes);
  std::string hex_digest();  // finishes the hash; call once

 private:
  evp_md_ctx_st* ctx_;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace ako::jit
