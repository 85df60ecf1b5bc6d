# fig14_layers_tiers: written by strata-eval run; gnuplot fig14_layers_tiers.gp (in this directory)
set datafile missing 'nan'
set xlabel 'WL layers' noenhanced
set ylabel 'slowest / fastest tier latency (ratio)' noenhanced
set grid
set key outside right top noenhanced
set title 'Latency spread (slowest / fastest tier access latency) vs WL layers' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './fig14_layers_tiers.png'
plot './fig14_layers_tiers.dat' index 0 using 1:2 with linespoints title '2 tiers', \
     './fig14_layers_tiers.dat' index 1 using 1:2 with linespoints title '4 tiers', \
     './fig14_layers_tiers.dat' index 2 using 1:2 with linespoints title '8 tiers', \
     './fig14_layers_tiers.dat' index 3 using 1:2 with linespoints title '16 tiers'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './fig14_layers_tiers.svg'
replot
set output
