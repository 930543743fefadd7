// The table of protocols: which PageProtocol serves a page of each
// loom_protocol_t.  A new protocol is one more entry here (and its file).
#include "protocol/protocol.hpp"

namespace loom {

const PageProtocol* const kProtocolOf[] = {
    &kHlrc,  // LOOM_PROTOCOL_HLRC
    &kErc,   // LOOM_PROTOCOL_ERC_INVALIDATE (notices drop copies)
    &kErc,   // LOOM_PROTOCOL_ERC_UPDATE (notices refresh copies)
};
static_assert(sizeof kProtocolOf / sizeof kProtocolOf[0] == kProtocolLast + 1,
              "one entry per loom_protocol_t");

const std::vector<const PageProtocol*>& protocol_families() {
  static const std::vector<const PageProtocol*>& families = *new std::vector<const PageProtocol*>([] {  // never destroyed: see runtime.hpp
    std::vector<const PageProtocol*> v;
    for (const PageProtocol* p : kProtocolOf) {
      bool seen = false;
      for (const PageProtocol* q : v) seen |= q == p;
      if (!seen) v.push_back(p);
    }
    return v;
  }());
  return families;
}

const uint8_t* protocol_family_of() {
  static const std::vector<uint8_t>& of = *new std::vector<uint8_t>([] {  // never destroyed: see runtime.hpp
    const auto& f = protocol_families();
    std::vector<uint8_t> v;
    for (const PageProtocol* p : kProtocolOf)
      for (size_t i = 0; i < f.size(); i++)
        if (f[i] == p) v.push_back((uint8_t)i);
    return v;
  }());
  return of.data();
}

}  // namespace loom
