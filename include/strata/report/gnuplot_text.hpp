// SPDX-License-Identifier: MIT
#pragma once
/// \file
/// Text of gnuplot scripts from outside strings, shared by the scenario plots
/// (`report/scenario_io.hpp`) and the plots of any sweep's CSV (`report/sweep_plot.hpp`).
///
/// Every string from outside (titles, axis labels, column and axis names, file names) enters a
/// script through `gnuplot_string` or `gnuplot_file` only, so no input can make gnuplot run a
/// command: a single-quoted gnuplot string is text (no backquote command substitution, no `@`
/// macro, no backslash escape), a quote inside is drawn as ’ (gnuplot 5.4's reader takes one
/// doubled quote `''` but not two in a row, and a string it ends early leaves the rest of the line
/// to be read as commands), control characters become spaces (a newline would end the command),
/// and a file name is given as `./name` (gnuplot runs `plot '<cmd'` and `set output '|cmd'` as
/// commands). Enhanced-text markup (`^`, `_`, `{`, `@`, `&`, `~`) is drawn as it is: the scripts'
/// terminals and text commands are `noenhanced`. A title wrapped to the plot's width is its lines
/// as such strings joined by the script's own `."\n".` (`gnuplot_lines`).

#include <algorithm>    // std::max
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "strata/core/error.hpp"

namespace strata {
inline namespace v0 {

namespace detail {

/// `s` with every control character (C0 and DEL) replaced by a space: one line of a script.
inline std::string gnuplot_line_text(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F) c = ' ';
  }
  return out;
}

}  // namespace detail

/// `s` as a gnuplot string literal that gnuplot reads as text only (the file comment): in single
/// quotes, where gnuplot 5 does no backquote command substitution, no `@` macro expansion and no
/// backslash escape; a quote `'` replaced by ’ (U+2019), so nothing inside can end the string; a
/// control character (a newline would end the command) replaced by a space. `it's` gives
/// `'it’s'`. Use it for every outside string a script names, with `noenhanced` where the text is
/// drawn.
inline std::string gnuplot_string(std::string_view s) {
  std::string out = "'";
  for (char c : detail::gnuplot_line_text(s)) {
    if (c == '\'') {
      out += "\xE2\x80\x99";  // U+2019 in UTF-8
    } else {
      out += c;
    }
  }
  return out + "'";
}

/// A file name for a gnuplot script (`set output`, `plot`): `gnuplot_string` of `./name` for a
/// relative name, so a name starting with `<` or `|` (a command to gnuplot: `plot '<cmd'`,
/// `set output '|cmd'`) or naming a special file (`-`, `+`) is the file of that name. Throws
/// `config_error` ("plot") for a name with a quote or a control character, which a script cannot
/// name as it is.
inline std::string gnuplot_file(std::string_view name) {
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\'' || u < 0x20 || u == 0x7F) {
      throw config_error("plot", "[strata.scenario] plot file name '" + detail::gnuplot_line_text(name) +
                                     "' holds a quote or a control character: a gnuplot script cannot name it");
    }
  }
  if (!name.empty() && name.front() == '/') return gnuplot_string(name);
  return gnuplot_string("./" + std::string(name));
}

/// Lines of text as one gnuplot string expression: each line `gnuplot_string`, joined by the
/// script's own newline, `'first line'."\n".'second line'` (the only double-quoted text a script
/// holds: a single-quoted string has no escapes).
inline std::string gnuplot_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : R"(."\n".)") + gnuplot_string(l);
  return out.empty() ? gnuplot_string("") : out;
}

namespace detail {

/// Characters (UTF-8 code points) of `s`.
inline std::size_t text_chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  return n;
}

/// `text` in lines of at most `max_chars` characters (at least 1), broken at a space: the last
/// one after a punctuation mark (`,` `;` `:`) or before `(` when that line is at least half full,
/// otherwise the last one that fits; a word longer than a line is cut at a character boundary.
inline std::vector<std::string> wrap_plot_text(std::string_view text, std::size_t max_chars) {
  max_chars = std::max<std::size_t>(max_chars, 1);
  std::vector<std::string> lines;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (text_chars(text) > max_chars) {
    std::size_t chars = 0, fits = std::string_view::npos, phrase = std::string_view::npos, end = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {  // spaces whose line before them fits
      const auto u = static_cast<unsigned char>(text[i]);
      if ((u & 0xC0U) == 0x80U) continue;
      if (text[i] == ' ' && chars <= max_chars && i > 0) {
        fits = i;
        const bool mark = text[i - 1] == ',' || text[i - 1] == ';' || text[i - 1] == ':' ||
                          (i + 1 < text.size() && text[i + 1] == '(');
        if (mark && 2 * chars >= max_chars) phrase = i;
      }
      if (++chars > max_chars) {
        end = i;  // the first character past a full line
        break;
      }
    }
    if (end < text.size() && text[end] == ' ') fits = end;  // a line that ends exactly at a space
    const std::size_t at = phrase != std::string_view::npos ? phrase : fits;
    if (at == std::string_view::npos) {  // one word longer than a line: cut it
      lines.emplace_back(text.substr(0, end));
      text.remove_prefix(end);
      continue;
    }
    std::string_view line = text.substr(0, at);
    while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
    lines.emplace_back(line);
    text.remove_prefix(at);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!text.empty() || lines.empty()) lines.emplace_back(text);
  return lines;
}

/// A column or axis name read as text, its unit apart: `_per_` as "/", a last `_<unit>` (us, ns,
/// s, W, J, mm2, GiB, Gib, GB, TBps, GHz, TFLOPS) as the unit, other underscores as spaces.
struct plot_name {
  std::string text, unit;
};
inline plot_name read_plot_name(std::string_view id) {
  plot_name n;
  for (std::size_t at = 0; at < id.size();) {
    if (id.substr(at, 5) == "_per_") {
      n.text += '/';
      at += 5;
    } else {
      n.text += id[at++];
    }
  }
  static constexpr std::array<std::array<const char*, 2>, 12> units{{{"us", "us"}, {"ns", "ns"}, {"s", "s"}, {"W", "W"},
                                                                    {"J", "J"}, {"mm2", "mm2"}, {"GiB", "GiB"}, {"Gib", "Gib"},
                                                                    {"GB", "GB"}, {"TBps", "TB/s"}, {"GHz", "GHz"}, {"TFLOPS", "TFLOPS"}}};
  const std::size_t last = n.text.rfind('_');
  if (last != std::string::npos) {
    for (const auto& [tail, unit] : units) {
      if (n.text.compare(last + 1, std::string::npos, tail) == 0) {
        n.unit = unit;
        n.text.erase(last);
        break;
      }
    }
  }
  for (char& c : n.text) c = c == '_' ? ' ' : c;
  return n;
}

/// A column's or axis's default label: its name read as text, the unit in parentheses
/// (`moe_layer_latency_us`: "moe layer latency (us)", `tokens_per_s_per_mm2`: "tokens/s/mm2").
inline std::string plot_label(std::string_view id) {
  const auto n = read_plot_name(id);
  return n.unit.empty() ? n.text : n.text + " (" + n.unit + ")";
}

}  // namespace detail

/// The width rule of a plot's text: gnuplot's 12-point default fonts (pngcairo Sans, svg Arial)
/// draw at most about `plot_char_px` pixels per character (pngcairo: 9.96 px per "e", 8.3 px per
/// character of the committed titles; the svg's Arial is narrower), so a title of a plot area
/// `w` pixels wide is wrapped at word boundaries into lines of `w / plot_char_px` characters.
inline constexpr int plot_char_px = 10;

/// The files a plot script reads and writes, relative to the directory gnuplot runs in; an empty
/// name is the default `<name>.dat`, `<name>.png`, `<name>.svg`. (`strata-eval run` renders to
/// temporary names and renames them on success, so a failed render leaves an existing plot.)
struct plot_script_files {
  std::string data, png, svg;
};

}  // namespace v0
}  // namespace strata
