# fig8_pressure: written by strata-eval run; gnuplot fig8_pressure.gp (in this directory)
set datafile missing 'nan'
set xlabel 'chiplet x (mesh column)' noenhanced
set ylabel 'chiplet y (mesh row)' noenhanced
set size ratio -1
set palette rgbformulae 33,13,10
unset key
set xtics 1
set ytics 1
set terminal pngcairo size 1560,480 font 'Sans,12' noenhanced
set output './fig8_pressure.png'
set multiplot layout 1,4 title 'Per-chiplet compute pressure, DeepSeek-V2-Lite prefill, ESFT trace (HCRMap Fig. 8)' noenhanced
set title 'single-copy static' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:3 with image
set title 'Hydra' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:4 with image
set title 'MoEntwine' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:5 with image
set title 'HCRMap' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:6 with image
unset multiplot
set terminal svg size 1560,480 font 'Arial,12' noenhanced
set output './fig8_pressure.svg'
set multiplot layout 1,4 title 'Per-chiplet compute pressure, DeepSeek-V2-Lite prefill, ESFT trace (HCRMap Fig. 8)' noenhanced
set title 'single-copy static' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:3 with image
set title 'Hydra' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:4 with image
set title 'MoEntwine' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:5 with image
set title 'HCRMap' noenhanced
set cbrange [0.2915943287037037:3.3917824074074074]
plot './fig8_pressure.dat' using 1:2:6 with image
unset multiplot
set output
