// The LOOM_* settings.  One declarative table (config.cpp) holds every
// setting's variable name, default and help text; the same table parses the
// environment, validates values, and prints the effective configuration, so
// a benchmark can record exactly what it ran with.  Parsing is separated from
// the environment (config_parse_one) so that unit tests exercise it directly.
//
// Thread safety: pure functions over the caller's struct.
#pragma once
#include <cstddef>

#include "loom/loom.h"
#include "status.hpp"

namespace loom {

// The last loom_protocol_t value (a new protocol moves it; protocols.cpp
// checks that its table has an entry for each).
constexpr unsigned kProtocolLast = LOOM_PROTOCOL_ERC_UPDATE;

// Fill `cfg` with every default, then apply LOOM_* environment variables.
Status config_from_env(loom_config_t* cfg);
// Fill `cfg` with the built-in defaults only.
void config_defaults(loom_config_t* cfg);
// Apply one setting by its variable name (e.g. "LOOM_MEM_SIZE", "2G").
Status config_parse_one(loom_config_t* cfg, const char* name, const char* value);
// Check cross-field constraints (after all fields are set).
Status config_validate(const loom_config_t* cfg);
// "LOOM_X=value  # help" lines; returns the length needed (like snprintf).
size_t config_print(const loom_config_t* cfg, char* buf, size_t len);
// The LOOM_* variables of env (NULL-terminated "NAME=value" strings, as
// environ) that are no setting of Loom's, one warning line each with the
// nearest setting's name when it is a likely typo; the length needed.
size_t config_unknown_env(char* const* env, char* buf, size_t len);
// Parse sizes like "4096", "64K", "2M", "1G" (binary units).
bool parse_size(const char* s, unsigned long long* out);

}  // namespace loom
