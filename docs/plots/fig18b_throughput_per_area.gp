# fig18b_throughput_per_area: written by strata-eval run; gnuplot fig18b_throughput_per_area.gp (in this directory)
set datafile missing 'nan'
set xlabel 'WL layers' noenhanced
set ylabel 'decode tokens/s per mm2 of chip' noenhanced
set grid
set key outside right top noenhanced
set title 'Decode throughput per mm2 vs WL layers, Mixtral 8x7B,'."\n".'B = 16, S = 2048 (Stratum Fig. 18b)' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './fig18b_throughput_per_area.png'
plot './fig18b_throughput_per_area.dat' index 0 using 1:2 with linespoints title 'Stratum-L, Mixtral 8x7B'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './fig18b_throughput_per_area.svg'
replot
set output
