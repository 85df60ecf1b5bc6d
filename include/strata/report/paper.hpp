// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// The paper report: every number of the Stratum and HCRMap papers that strata is checked
/// against, computed from the models. `strata-paper-report` (examples/paper_report.cpp) prints
/// these rows; the test suite (tests/report/paper_test.cpp) runs the same functions and fails on
/// any judged row out of tolerance.
///
/// A row's value always comes from evaluating a model on the stated configuration; the paper's
/// value is only used to judge it.
///
/// The families of this header each have their own (`report/stratum_device_rows.hpp`,
/// `stratum_logic_rows.hpp`, `stratum_chip_rows.hpp`, `stratum_system_rows.hpp`,
/// `hcrmap_metadata_rows.hpp`): a program that wants one family includes its header only.

#include "strata/report/hcrmap_metadata_rows.hpp"
#include "strata/report/hcrmap_models.hpp"
#include "strata/report/paper_row.hpp"
#include "strata/report/stratum_chip_rows.hpp"
#include "strata/report/stratum_device_rows.hpp"
#include "strata/report/stratum_logic_rows.hpp"
#include "strata/report/stratum_system_rows.hpp"
