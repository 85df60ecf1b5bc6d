# fig14_layers_tiers: written by strata-eval run; gnuplot fig14_layers_tiers.gp (in this directory)
set datafile missing 'nan'
set title 'Latency spread (slowest / fastest tier access latency) vs WL layers' noenhanced
set xlabel 'WL layers' noenhanced
set ylabel 'slowest / fastest tier latency' noenhanced
set grid
set key outside right top noenhanced
set terminal pngcairo size 960,600 noenhanced
set output './fig14_layers_tiers.png'
plot './fig14_layers_tiers.dat' index 0 using 1:2 with linespoints title 'tiers = 2', \
     './fig14_layers_tiers.dat' index 1 using 1:2 with linespoints title 'tiers = 4', \
     './fig14_layers_tiers.dat' index 2 using 1:2 with linespoints title 'tiers = 8', \
     './fig14_layers_tiers.dat' index 3 using 1:2 with linespoints title 'tiers = 16'
set terminal svg size 960,600 noenhanced
set output './fig14_layers_tiers.svg'
replot
set output
