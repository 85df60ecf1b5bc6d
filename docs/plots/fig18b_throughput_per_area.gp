# fig18b_throughput_per_area: written by strata-eval run; gnuplot fig18b_throughput_per_area.gp (in this directory)
set datafile missing 'nan'
set title 'Decode throughput per mm2 vs WL layers, Mixtral 8x7B, B = 16, S = 2048 (Stratum Fig. 18b)' noenhanced
set xlabel 'WL layers' noenhanced
set ylabel 'decode tokens/s per mm2 of chip' noenhanced
set grid
set key outside right top noenhanced
set terminal pngcairo size 960,600 noenhanced
set output './fig18b_throughput_per_area.png'
plot './fig18b_throughput_per_area.dat' index 0 using 1:2 with linespoints title 'tokens_per_s_per_mm2'
set terminal svg size 960,600 noenhanced
set output './fig18b_throughput_per_area.svg'
replot
set output
