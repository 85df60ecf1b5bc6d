# fig17_hit_rate: written by strata-eval run; gnuplot fig17_hit_rate.gp (in this directory)
set datafile missing 'nan'
set xlabel 'hot-expert hit rate (fraction of routed tokens)' noenhanced
set ylabel 'MoE layer latency (us)' noenhanced
set grid
set key outside right top noenhanced
set title 'MoE-layer latency vs hot-expert hit rate, Mixtral 8x7B on Stratum-L,'."\n".'S = 2048 (Stratum Fig. 17)' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './fig17_hit_rate.png'
plot './fig17_hit_rate.dat' index 0 using 1:2 with linespoints title 'batch 1', \
     './fig17_hit_rate.dat' index 1 using 1:2 with linespoints title 'batch 16', \
     './fig17_hit_rate.dat' index 2 using 1:2 with linespoints title 'batch 64'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './fig17_hit_rate.svg'
replot
set output
