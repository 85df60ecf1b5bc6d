#include "strata/core/files.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // getuid

#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::create_symlink, exists
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <utility>     // std::pair

#include "support/field_of.hpp"
#include "support/scratch_dir.hpp"

using namespace strata;

namespace {

bool files_contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("message_path keeps a short value and the tail of a long one, on character boundaries") {
  CHECK(detail::message_path("a/b.json") == "a/b.json");
  const std::string dir(300, 'd');
  const std::string p = "/" + dir + "/absent.config.json";
  const std::string m = detail::message_path(p);
  CHECK(m.size() <= 160);
  CHECK(files_contains(m, "absent.config.json"));
  CHECK(files_contains(m, "..."));
  CHECK(m.front() == '/');
  // A path of two-byte characters (é is C3 A9): no cut inside a character.
  std::string wide = "/";
  for (int i = 0; i < 200; ++i) wide += "\xC3\xA9";
  wide += "/f\xC3\xA9.csv";
  const std::string w = detail::message_path(wide);
  CHECK(files_contains(w, "f\xC3\xA9.csv"));
  for (std::size_t i = 0; i < w.size(); ++i) {
    const auto c = static_cast<unsigned char>(w[i]);
    if (c == 0xC3) {
      REQUIRE(i + 1 < w.size());
      CHECK(static_cast<unsigned char>(w[i + 1]) == 0xA9);
    }
    if (c == 0xA9) {
      REQUIRE(i > 0);
      CHECK(static_cast<unsigned char>(w[i - 1]) == 0xC3);
    }
  }
}

TEST_CASE("read_input_file reads a regular file and refuses what is not one, naming the role and the file") {
  const strata_test::scratch_dir d("files");
  const std::string ok = d.write("ok.csv", "a,b\n1,2\n");
  CHECK(read_input_file(ok, "trace", 1 << 20, "trace_file_bytes") == "a,b\n1,2\n");

  SUBCASE("a missing file") {
    const std::string e = strata_test::message_of([&] { (void)read_input_file(d.file("absent.csv"), "trace", 100, "trace_file_bytes"); });
    CHECK(files_contains(e, "[strata.file] trace"));
    CHECK(files_contains(e, "absent.csv"));
    CHECK(files_contains(e, "cannot be opened"));
    CHECK(strata_test::field_of([&] { (void)read_input_file(d.file("absent.csv"), "trace", 100, "x"); }) == "trace");
  }
  SUBCASE("a directory") {
    const std::string e = strata_test::message_of([&] { (void)read_input_file(d.path().string(), "scenario", 100, "json_file_bytes"); });
    CHECK(files_contains(e, "is not a regular file (a directory)"));
  }
  SUBCASE("a character device") {
    const std::string e = strata_test::message_of([&] { (void)read_input_file("/dev/zero", "checkpoint", 100, "checkpoint_file_bytes"); });
    CHECK(files_contains(e, "'/dev/zero' is not a regular file (a character device)"));
    CHECK(files_contains(strata_test::message_of([&] { (void)read_input_file("/dev/null", "config.json", 100, "x"); }), "character device"));
  }
  SUBCASE("a FIFO nobody writes: refused at once, not waited on") {
    const std::string fifo = d.file("pipe");
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(files_contains(strata_test::message_of([&] { (void)read_input_file(fifo, "trace", 100, "x"); }), "(a FIFO)"));
  }
  SUBCASE("a file over the cap, named with the limit") {
    const std::string big = d.write("big.json", std::string(101, ' '));
    const std::string e = strata_test::message_of([&] { (void)read_input_file(big, "scenario", 100, "json_file_bytes"); });
    CHECK(files_contains(e, "larger than the limit of 100 bytes (strata::limits().json_file_bytes)"));
    CHECK(read_input_file(big, "scenario", 101, "json_file_bytes").size() == 101);
  }
  SUBCASE("an empty path") {
    CHECK(strata_test::field_of([&] { (void)read_input_file("", "trace", 100, "x"); }) == "trace");
  }
}

TEST_CASE("output_file replaces its target only on commit and leaves it untouched on failure") {
  const strata_test::scratch_dir d("files");
  const std::string out = d.write("table.csv", "old table\n");

  SUBCASE("committed: the new content, no temporary file left") {
    output_file f(out, "out");
    f.stream() << "new table\n";
    f.commit();
    CHECK(strata_test::slurp(out) == "new table\n");
  }
  SUBCASE("destroyed without a commit (an exception mid-run): the old content") {
    try {
      output_file f(out, "out");
      f.stream() << "half a tab";
      throw std::runtime_error("a point failed");
    } catch (const std::runtime_error&) {
    }
    CHECK(strata_test::slurp(out) == "old table\n");
  }
  SUBCASE("a new file appears only on commit") {
    const std::string fresh = d.file("fresh.csv");
    {
      output_file f(fresh, "out");
      f.stream() << "x";
      CHECK_FALSE(std::filesystem::exists(fresh));
      f.commit();
    }
    CHECK(strata_test::slurp(fresh) == "x");
  }
  SUBCASE("a symbolic link: the file it names is replaced, the link stays") {
    const std::string link = d.file("link.csv");
    std::filesystem::create_symlink(out, link);
    output_file::write(link, "out", "via link\n");
    CHECK(std::filesystem::is_symlink(link));
    CHECK(strata_test::slurp(out) == "via link\n");
  }
  SUBCASE("/dev/null is written in place, not replaced") {
    output_file::write("/dev/null", "out", "discarded\n");
    struct stat st {};
    REQUIRE(stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  SUBCASE("a directory or a missing directory is refused, naming the role") {
    CHECK(files_contains(strata_test::message_of([&] { output_file f(d.path().string(), "plot"); }), "[strata.file] plot"));
    CHECK(files_contains(strata_test::message_of([&] { output_file f(d.file("no/such/dir.csv"), "out"); }), "its directory does not exist"));
  }
  // Nothing but the two files of the test is left in the directory (no temporary file).
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(d.path())) ++n;
  CHECK(n <= 2);
}

TEST_CASE("refuse_input refuses an output that names an input, by file or by path") {
  const strata_test::scratch_dir d("files");
  const std::string in = d.write("s.json", "{}");
  CHECK(files_contains(strata_test::message_of([&] { refuse_input(in, "out", {in}); }), "is an input of this run"));
  // The same file by another spelling, and through a link.
  const std::string other = (d.path() / "." / "s.json").string();
  CHECK(strata_test::field_of([&] { refuse_input(other, "out", {in}); }) == "out");
  const std::string link = d.file("l.json");
  std::filesystem::create_symlink(in, link);
  CHECK(strata_test::field_of([&] { refuse_input(link, "out", {"", in}); }) == "out");
  // A different file, or one that does not exist yet, is fine.
  CHECK(strata_test::field_of([&] { refuse_input(d.file("t.csv"), "out", {in}); }) == "<no config_error>");
  CHECK(strata_test::field_of([&] { refuse_input(d.write("u.csv", ""), "out", {in}); }) == "<no config_error>");
}

TEST_CASE("docs/using.md's table of file size caps is limits()'s") {
  const std::string readme = strata_test::slurp(std::string(STRATA_TEST_DATA_DIR) + "/../../docs/using.md");
  REQUIRE(files_contains(readme, "### Files and limits"));
  const auto size_text = [](std::int64_t b) {
    return b % (std::int64_t{1} << 30) == 0 ? std::to_string(b >> 30) + " GiB" : std::to_string(b >> 20) + " MiB";
  };
  const input_limits l;
  const std::pair<const char*, std::int64_t> caps[] = {
      {"json_file_bytes", l.json_file_bytes},
      {"trace_file_bytes", l.trace_file_bytes},
      {"table_file_bytes", l.table_file_bytes},
      {"measurement_file_bytes", l.measurement_file_bytes},
      {"checkpoint_file_bytes", l.checkpoint_file_bytes},
  };
  for (const auto& [name, bytes] : caps) {
    CAPTURE(name);
    REQUIRE(bytes % (std::int64_t{1} << 20) == 0);
    CHECK(files_contains(readme, std::string("| `") + name + "` | " + size_text(bytes) + " |"));
  }
}
