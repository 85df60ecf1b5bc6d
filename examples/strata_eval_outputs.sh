#!/usr/bin/env bash
# Data never runs a command; inputs and outputs survive (run by CTest, examples/CMakeLists.txt):
#   strata_eval_outputs.sh <strata-eval> <source dir> <case> [<strata-train-hcrmap-dqn>]
# plot_hostile       hostile strings in every scenario field that reaches a gnuplot script: the
#                    script holds them as single-quoted text, one command per line, and running it
#                    (by strata-eval and by gnuplot itself) creates no file the strings name
# validate_hostile   validate --plot into a directory whose name holds quotes, a backtick and $(...)
# run_survives       run: an --out or --plot file naming an input (the scenario, its trace or
#                    checkpoint) is refused with exit 1, the input unchanged; a run whose point fails
#                    leaves an existing --out and plot files byte-identical; a run that succeeds
#                    replaces them; the optimise study alike
# render_survives    a gnuplot that fails (a stand-in on PATH that draws part of its files and exits
#                    1) leaves an existing PNG and SVG byte-identical (run and validate)
# validate_survives  validate: a plot file naming the --csv input is refused; a failing run leaves
#                    existing plot files byte-identical
# train_survives     strata-train-hcrmap-dqn: an --out naming the trace is refused; a failing run
#                    leaves an existing checkpoint byte-identical; a successful one replaces it
# Every file is made in a scratch directory (mktemp -d under TMPDIR) whose path holds a space, '+'
# and parentheses.
set -euo pipefail
eval_bin=$1
src=$2
case_name=$3
train_bin=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work="$tmp/dir with space+(x)"
mkdir -p "$work"
cd "$work"  # a command a hostile string ran would write here or in the plot directory

fail() {
  echo "FAIL ($case_name): $*" >&2
  exit 1
}
# expect_exit <status> <command...>: runs the command, its output in $work/.stdout and .stderr.
expect_exit() {
  local want=$1 rc=0
  shift
  "$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
  if [[ $rc != "$want" ]]; then
    echo "stderr:" >&2
    cat "$tmp/stderr" >&2
    fail "exit status $rc, expected $want: $*"
  fi
}
expect_err() { grep -qF -- "$1" "$tmp/stderr" || { cat "$tmp/stderr" >&2; fail "stderr lacks '$1'"; }; }
# same <file> <copy>: byte-identical.
same() { cmp -s -- "$1" "$2" || fail "$1 changed"; }
# No temporary file left beside the outputs.
no_temp() {
  local left
  left=$(find "$1" \( -name '.*.tmp*' -o -name '.*.render' \) -print | head -n 1)
  [[ -z $left ]] || fail "a temporary file was left: $left"
}
no_injected() {
  local hit
  hit=$(find "$tmp" -name 'PWN*' -print | head -n 1)
  [[ -z $hit ]] || fail "a command from the data ran: $hit exists"
}
have_gnuplot() { command -v gnuplot >/dev/null 2>&1; }
# A short measurement file: the first two rows of every source of the shipped set (every series
# and both sets, fit and check). The plot's files and the rules about them are what these cases
# check; the fit over the whole set runs in examples.strata-eval.validate and its JSON cases.
small_measurements() {
  local csv="$src/tests/data/measurements/gpu_measurements.csv"
  { sed -n '1,/^id,/p' "$csv"
    grep -v '^#' "$csv" | sed -n '2,$p' | awk -F, '{ s = $1; sub(/-.*/, "", s); if (++n[s] <= 2) print }'
  } >"$1"
}

# A small device study (2 points, well under a second), with a plot.
device_scenario() {  # <file> <name>
  printf '%s\n' "{\"name\": \"$2\", \"study\": \"device\", \"sweep\": {\"axes\": [{\"name\": \"layers\", \"kind\": \"list\", \"values\": [128, 256]}]},
 \"plot\": {\"x\": \"layers\", \"y\": \"latency_spread\"}}" >"$1"
}
# An HCRMap study whose second SRAM scale cannot hold the controller's reserve: the run fails at a
# point, after it started (exit 1, [strata.residency]).
failing_scenario() {  # <file> <name>
  printf '%s\n' "{\"name\": \"$2\", \"study\": \"hcrmap_budget\", \"model\": \"DeepSeek-V2-Lite\",
 \"hcrmap\": {\"mode\": \"decode\", \"windows\": 1, \"max_layers\": 1},
 \"sweep\": {\"axes\": [{\"name\": \"sram_scale\", \"kind\": \"list\", \"values\": [1.0, 0.0625]}]},
 \"plot\": {\"x\": \"sram_scale\", \"y\": \"hcrmap_normalised\"}}" >"$1"
}

case "$case_name" in
  plot_hostile)
    # Hostile text in JSON: backquotes, $(...), system() after a closing quote of either kind,
    # doubled quotes, backslashes (one at the end), newlines followed by commands (!, set output
    # '|...', print), a carriage return, a tab, DEL, enhanced-text markup and a macro.
    cat >lines_top.json <<'EOF'
{"name": "lines_top", "study": "device",
 "title": "T `touch PWN_title` $(touch PWN_dollar) \" . system(\"touch PWN_dq\") . \" ' . system('touch PWN_sq') . ' @x {/Symbol a}^2_3 \\",
 "sweep": {"axes": [{"name": "layers", "kind": "list", "values": [128, 256]}, {"name": "tiers", "kind": "list", "values": [2, 4]}]},
 "plot": {"x": "layers", "y": ["latency_spread", "fastest_latency_ns"], "series": "tiers",
          "x_label": "X `touch PWN_x` ''' \\` \\\\ \\\" \"",
          "y_label": "Y \r\t`touch PWN_y`\u007f\\\n!touch PWN_bang\nset output '|touch PWN_pipe'\nprint system('touch PWN_sys')\n"}}
EOF
    cat >lines_plot.json <<'EOF'
{"name": "lines_plot", "study": "device", "title": "unused",
 "sweep": {"axes": [{"name": "layers", "kind": "list", "values": [128, 256]}]},
 "plot": {"x": "layers", "y": "latency_spread",
          "title": "P '\n`touch PWN_ptitle`\n' . system('touch PWN_psq') . '\nload '|touch PWN_load'\ncall \"x\" `touch PWN_call`"}}
EOF
    cat >heat.json <<'EOF'
{"name": "heat", "study": "hcrmap_pressure", "model": "DeepSeek-V2-Lite",
 "title": "H `touch PWN_heat` ' . system('touch PWN_hsq') . '\n!touch PWN_hbang\n",
 "hcrmap": {"mode": "decode", "windows": 1, "max_layers": 1},
 "sweep": {"axes": [{"name": "x", "kind": "integer", "first": 0, "last": 3}, {"name": "y", "kind": "integer", "first": 0, "last": 3}]},
 "plot": {"x": "x", "series": "y", "style": "heatmap", "y": ["static_pressure", "hcrmap_pressure"],
          "x_label": "HX `touch PWN_hx` \\", "y_label": "HY\n`touch PWN_hy`"}}
EOF
    plots="$work/plots (hostile) +1"
    for s in lines_top lines_plot heat; do
      expect_exit 0 "$eval_bin" run "$s.json" --plot "$plots"
      gp="$plots/$s.gp"
      [[ -s $gp ]] || fail "$gp was not written"
      # One command per line: a newline in the data did not start a command.
      bad=$(grep -nEv "^(# $s: written by strata-eval run|set |unset |plot '|     '\./$s\.dat' |replot$)" "$gp" || true)
      [[ -z $bad ]] || fail "$gp has a line that is no command of the plot: $bad"
      # Every file name is ./<name>: never read as a command ('<cmd', '|cmd').
      ! grep -qE "^(set output|plot) '[^.]|^     '[^.]" "$gp" || fail "$gp names a file without ./"
    done
    # The text is kept in single quotes: a quote drawn as ’ (nothing inside ends the string),
    # control characters as spaces, a backslash as it is. A title too long for the plot is
    # wrapped at spaces into lines joined by the script's own ."\n" (read here joined again).
    unwrap() { sed -e "s/'\.\"\\\\n\"\.'/ /g" "$1"; }
    grep -qF "'.\"\\n\".'" "$plots/lines_top.gp" || fail "the long top-level title is not wrapped"
    grep -qF "set title 'T \`touch PWN_title\` \$(touch PWN_dollar) \" . system(\"touch PWN_dq\") . \" ’ . system(’touch PWN_sq’) . ’ @x {/Symbol a}^2_3 \\' noenhanced" <(unwrap "$plots/lines_top.gp") ||
      fail "the top-level title is not quoted as expected"
    grep -qF "set xlabel 'X \`touch PWN_x\` ’’’ \\\` \\\\ \\\" \"' noenhanced" "$plots/lines_top.gp" ||
      fail "plot.x_label is not quoted as expected"
    grep -qF "set ylabel 'Y   \`touch PWN_y\` \\ !touch PWN_bang set output ’|touch PWN_pipe’ print system(’touch PWN_sys’) ' noenhanced" \
      "$plots/lines_top.gp" || fail "plot.y_label is not quoted as expected"
    grep -qF "set title 'P ’ \`touch PWN_ptitle\` ’ . system(’touch PWN_psq’) . ’ load ’|touch PWN_load’ call \"x\" \`touch PWN_call\`' noenhanced" <(unwrap "$plots/lines_plot.gp") ||
      fail "plot.title is not quoted as expected"
    grep -qF "set multiplot layout 1,2 title 'H \`touch PWN_heat\` ’ . system(’touch PWN_hsq’) . ’ !touch PWN_hbang ' noenhanced" \
      "$plots/heat.gp" || fail "the heatmap title is not quoted as expected"
    no_injected
    if have_gnuplot; then
      for s in lines_top lines_plot heat; do
        [[ -s "$plots/$s.png" && -s "$plots/$s.svg" ]] || fail "$s.png or $s.svg was not drawn"
        # As a user would: gnuplot on the script, in its directory.
        (cd "$plots" && gnuplot "$s.gp") >/dev/null 2>&1 || fail "gnuplot $s.gp failed"
      done
      no_injected
      no_temp "$plots"
      echo "hostile strings are text: 3 scripts checked and drawn, no command ran"
    else
      echo "hostile strings are text: 3 scripts checked (gnuplot not on PATH: not drawn)"
    fi ;;

  validate_hostile)
    vd="$work/v'q\"\`touch PWN_v\`\$(touch PWN_v2); touch PWN_v3 #"
    mkdir -p "$vd"
    small_measurements "$tmp/m.csv"
    expect_exit 0 "$eval_bin" validate --csv "$tmp/m.csv" --plot "$vd"
    [[ -s "$vd/validation.dat" && -s "$vd/validation.gp" ]] || fail "validation.dat or .gp was not written"
    ! grep -qF "$vd" "$vd/validation.gp" || fail "the directory's name entered the script"
    if have_gnuplot; then
      [[ -s "$vd/validation.png" ]] || fail "validation.png was not drawn"
      (cd "$vd" && gnuplot validation.gp) >/dev/null 2>&1 || fail "gnuplot validation.gp failed"
    fi
    no_injected
    no_temp "$vd"
    echo "validate --plot into a hostile directory name: no command ran" ;;

  run_survives)
    data="$work/data (in)+"
    mkdir -p "$data"
    head -n 3 "$src/tests/data/traces/dsv2lite_esft_trace_intent.csv" >"$data/t.csv"
    cp "$src/tests/data/hcrmap/dqn_checkpoint.json" "$data/ck.json"
    printf '%s\n' '{"name": "t", "study": "hcrmap_budget", "model": "DeepSeek-V2-Lite",
 "hcrmap": {"mode": "decode", "windows": 1, "max_layers": 1, "trace": "t.csv", "checkpoint": "ck.json"},
 "sweep": {"axes": [{"name": "budget_factor", "kind": "list", "values": [1.0, 2.0]}]},
 "plot": {"x": "budget_factor", "y": "hcrmap_normalised"}}' >"$data/s.json"
    device_scenario dev.json dev
    mkdir -p keep
    for f in "$data/t.csv" "$data/ck.json" "$data/s.json" dev.json; do cp -- "$f" "keep/$(basename -- "$f")"; done
    # (i) An output naming an input: refused, exit 1, the input unchanged.
    expect_exit 1 "$eval_bin" run dev.json --out dev.json
    expect_err "is an input of this run"
    [[ ! -s "$tmp/stdout" ]] || fail "run wrote before refusing its output"
    expect_exit 1 "$eval_bin" run dev.json --out ./dev.json
    expect_exit 1 "$eval_bin" run dev.json --out "$work/../$(basename -- "$work")/dev.json"
    ln -s dev.json link.json
    expect_exit 1 "$eval_bin" run dev.json --out link.json
    expect_exit 1 "$eval_bin" run "$data/s.json" --data-dir "$data" --out "$data/t.csv"
    expect_exit 1 "$eval_bin" run "$data/s.json" --data-dir "$data" --out "$data/ck.json"
    expect_exit 1 "$eval_bin" run "$data/s.json" --data-dir "$data" --out "$data/s.json" --format jsonl
    # --plot DIR whose <name>.csv is the trace (scenario t, DIR/t.csv).
    expect_exit 1 "$eval_bin" run "$data/s.json" --data-dir "$data" --plot "$data"
    expect_err "t.csv"
    for f in "$data/t.csv" "$data/ck.json" "$data/s.json" dev.json; do same "$f" "keep/$(basename -- "$f")"; done
    # The optimise study's --out alike.
    cp "$src/examples/scenarios/optimise_64k.json" opt.json
    cp opt.json keep/opt.json
    expect_exit 1 "$eval_bin" run opt.json --out opt.json
    same opt.json keep/opt.json
    # (ii) A run whose point fails (the second SRAM scale) leaves the existing files as they were.
    failing_scenario bad.json bad
    printf 'an earlier table\n' >out.csv
    cp out.csv keep/out.csv
    expect_exit 1 "$eval_bin" run bad.json --out out.csv
    expect_err "[strata.residency]"
    same out.csv keep/out.csv
    expect_exit 1 "$eval_bin" run bad.json --out out.csv --format jsonl --threads 2
    same out.csv keep/out.csv
    mkdir -p plots
    for ext in csv dat gp png svg; do printf 'an earlier %s\n' "$ext" >"plots/bad.$ext"; done
    cp -R plots keep/plots
    expect_exit 1 "$eval_bin" run bad.json --out out.csv --plot plots
    same out.csv keep/out.csv
    for ext in csv dat gp png svg; do same "plots/bad.$ext" "keep/plots/bad.$ext"; done
    no_temp "$work"
    # A run that succeeds replaces them (a table, not the earlier text).
    expect_exit 0 "$eval_bin" run dev.json --out out.csv
    head -n 1 out.csv | grep -q '^index,layers,' || fail "out.csv is not the new table"
    expect_exit 0 "$eval_bin" run opt.json --out opt.csv
    head -n 1 opt.csv | grep -q '^design,' || fail "opt.csv is not the optimise table"
    no_temp "$work"
    echo "run: inputs refused as outputs, a failed run left every output byte-identical" ;;

  render_survives)
    # A gnuplot stand-in: reads the script from its standard input, writes part of every file it
    # is told to draw, leaves a mark in its working directory and fails.
    bin="$tmp/fake bin (gnuplot)"
    mkdir -p "$bin"
    cat >"$bin/gnuplot" <<'EOF'
#!/bin/sh
: >gnuplot_ran
sed -n "s/^set output '\(.*\)'\$/\1/p" | while IFS= read -r f; do printf 'partial' >"$f"; done
exit 1
EOF
    chmod +x "$bin/gnuplot"
    device_scenario dev.json dev
    plots="$work/plots (render)"
    mkdir -p "$plots"
    printf 'an earlier png\n' >"$plots/dev.png"
    printf 'an earlier svg\n' >"$plots/dev.svg"
    mkdir -p keep
    cp "$plots/dev.png" "$plots/dev.svg" keep/
    PATH="$bin:$PATH" expect_exit 1 "$eval_bin" run dev.json --plot "$plots"
    expect_err "failed"
    [[ -e "$plots/gnuplot_ran" ]] || fail "the stand-in gnuplot did not run in the plot directory"
    same "$plots/dev.png" keep/dev.png
    same "$plots/dev.svg" keep/dev.svg
    no_temp "$plots"
    vd="$work/validate (render)"
    mkdir -p "$vd"
    printf 'an earlier png\n' >"$vd/validation.png"
    cp "$vd/validation.png" keep/validation.png
    small_measurements "$tmp/m.csv"
    PATH="$bin:$PATH" expect_exit 0 "$eval_bin" validate --csv "$tmp/m.csv" --plot "$vd"
    expect_err "gnuplot failed"
    [[ -e "$vd/gnuplot_ran" ]] || fail "the stand-in gnuplot did not run for validate"
    same "$vd/validation.png" keep/validation.png
    no_temp "$vd"
    echo "a failed render left the existing PNG and SVG byte-identical" ;;

  validate_survives)
    vd="$work/validate (out)"
    mkdir -p "$vd" keep
    csv=$(find "$src/tests/data/measurements" -name '*.csv' | head -n 1)
    [[ -n $csv ]] || fail "no measurement CSV under tests/data/measurements"
    cp "$csv" "$vd/validation.dat"
    cp "$vd/validation.dat" keep/validation.dat
    expect_exit 1 "$eval_bin" validate --csv "$vd/validation.dat" --plot "$vd"
    expect_err "is an input of this run"
    [[ ! -s "$tmp/stdout" ]] || fail "validate ran before refusing its output"
    expect_exit 1 "$eval_bin" validate --csv "$vd/validation.dat" --plot "$vd/." --json
    same "$vd/validation.dat" keep/validation.dat
    # A failing run (a measurement file that does not parse) leaves the plot files as they were.
    printf 'an earlier gp\n' >"$vd/validation.gp"
    cp "$vd/validation.gp" keep/validation.gp
    printf 'not,a,measurement,file\n' >bad.csv
    expect_exit 1 "$eval_bin" validate --csv bad.csv --plot "$vd"
    same "$vd/validation.dat" keep/validation.dat
    same "$vd/validation.gp" keep/validation.gp
    no_temp "$vd"
    echo "validate: its input refused as a plot file, a failed run left the plot files byte-identical" ;;

  train_survives)
    [[ -n $train_bin ]] || fail "no strata-train-hcrmap-dqn given"
    data="$work/data (train)+"
    mkdir -p "$data/traces" keep
    cp "$src/tests/data/traces/dsv2lite_esft_trace_intent.csv" "$data/traces/"
    cp "$data/traces/dsv2lite_esft_trace_intent.csv" keep/trace.csv
    expect_exit 1 "$train_bin" --data-dir "$data" --out "$data/traces/dsv2lite_esft_trace_intent.csv" --episodes 0
    expect_err "is an input of this run"
    same "$data/traces/dsv2lite_esft_trace_intent.csv" keep/trace.csv
    # A run that fails (a trace that does not parse) leaves an existing checkpoint as it was.
    bad="$work/bad data"
    mkdir -p "$bad/traces"
    printf 'seq,pos,L1\nx\n' >"$bad/traces/dsv2lite_esft_trace_intent.csv"
    printf '{"an": "earlier checkpoint"}\n' >ck.json
    cp ck.json keep/ck.json
    expect_exit 1 "$train_bin" --data-dir "$bad" --out ck.json --episodes 0
    same ck.json keep/ck.json
    no_temp "$work"
    # A run that succeeds replaces it.
    expect_exit 0 "$train_bin" --data-dir "$data" --out ck.json --episodes 0
    grep -q '"format": "strata.hcrmap.dqn"' ck.json || fail "ck.json is not the new checkpoint"
    no_temp "$work"
    echo "train: the trace refused as --out, a failed run left the checkpoint byte-identical" ;;

  *)
    echo "unknown case $case_name" >&2
    exit 2 ;;
esac
