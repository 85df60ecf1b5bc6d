# fig8_pressure: written by strata-eval run; gnuplot fig8_pressure.gp (in this directory)
set datafile missing 'nan'
set title 'Per-chiplet compute pressure, DeepSeek-V2-Lite prefill, ESFT trace (HCRMap Fig. 8)' noenhanced
set xlabel 'chiplet x' noenhanced
set ylabel 'chiplet y' noenhanced
set size ratio -1
set palette rgbformulae 33,13,10
unset key
set xtics 1
set ytics 1
set terminal pngcairo size 1560,480 noenhanced
set output './fig8_pressure.png'
set multiplot layout 1,4 title 'Per-chiplet compute pressure, DeepSeek-V2-Lite prefill, ESFT trace (HCRMap Fig. 8)' noenhanced
set title 'static_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:3 with image
set title 'hydra_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:4 with image
set title 'moentwine_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:5 with image
set title 'hcrmap_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:6 with image
unset multiplot
set terminal svg size 1560,480 noenhanced
set output './fig8_pressure.svg'
set multiplot layout 1,4 title 'Per-chiplet compute pressure, DeepSeek-V2-Lite prefill, ESFT trace (HCRMap Fig. 8)' noenhanced
set title 'static_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:3 with image
set title 'hydra_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:4 with image
set title 'moentwine_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:5 with image
set title 'hcrmap_pressure' noenhanced
plot './fig8_pressure.dat' using 1:2:6 with image
unset multiplot
set output
