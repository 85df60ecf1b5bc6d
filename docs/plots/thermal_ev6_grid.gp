# Temperature map of HotSpot's EV6 example (gcc trace, mean power) from strata's grid model
# (64 x 64, die layer). Data: thermal_ev6_grid.dat (x_mm y_mm kelvin), written by
# scripts/regenerate_plots.sh from strata-eval thermal --grid-steady-file; see docs/thermal.md.
set terminal pngcairo size 640,560 font ",10"
set output "thermal_ev6_grid.png"
set title "EV6 die, gcc mean power (40.2 W): strata grid model 64 x 64"
set xlabel "x (mm)"
set ylabel "y (mm)"
set cblabel "temperature (K)"
set size ratio -1
set xrange [0:16]
set yrange [0:16]
set palette rgbformulae 33,13,10
set view map
plot "thermal_ev6_grid.dat" using 1:2:3 with image notitle
