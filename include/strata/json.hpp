// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// JSON for every strata type: the header to include for nlohmann/json support (of the other
/// headers only `strata/workload/hf_config.hpp`, the config.json reader, pulls nlohmann/json in).
/// Parameter and result structs list their fields once in `visit_fields`; this header turns that
/// list into `to_json`/`from_json`, with units on quantities and errors that name the JSON path;
/// `plain_numbers` turns a value into plain SI numbers for analysis tools.

#include "strata/core/json.hpp"
#include "strata/core/json_plain.hpp"
