# fig7_budget: written by strata-eval run; gnuplot fig7_budget.gp (in this directory)
set datafile missing 'nan'
set title 'Latency vs resident-copy budget, DeepSeek-V2-Lite prefill, ESFT trace (HCRMap Fig. 7)' noenhanced
set xlabel 'resident-copy budget B_res / sum S^wt' noenhanced
set ylabel 'latency / single-copy static' noenhanced
set grid
set key outside right top noenhanced
set terminal pngcairo size 960,600 noenhanced
set output './fig7_budget.png'
plot './fig7_budget.dat' index 0 using 1:2 with linespoints title 'static_normalised', \
     './fig7_budget.dat' index 0 using 1:3 with linespoints title 'fixed_normalised', \
     './fig7_budget.dat' index 0 using 1:4 with linespoints title 'hydra_normalised', \
     './fig7_budget.dat' index 0 using 1:5 with linespoints title 'moentwine_normalised', \
     './fig7_budget.dat' index 0 using 1:6 with linespoints title 'pimoe_normalised', \
     './fig7_budget.dat' index 0 using 1:7 with linespoints title 'hcrmap_normalised'
set terminal svg size 960,600 noenhanced
set output './fig7_budget.svg'
replot
set output
