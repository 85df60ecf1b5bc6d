# fig7_budget: written by strata-eval run; gnuplot fig7_budget.gp (in this directory)
set datafile missing 'nan'
set xlabel 'resident-copy budget B_res / sum S^wt' noenhanced
set ylabel 'latency / single-copy static (ratio)' noenhanced
set grid
set key outside right top noenhanced
set title 'Latency vs resident-copy budget, DeepSeek-V2-Lite prefill,'."\n".'ESFT trace (HCRMap Fig. 7)' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './fig7_budget.png'
plot './fig7_budget.dat' index 0 using 1:2 with linespoints title 'single-copy static', \
     './fig7_budget.dat' index 0 using 1:3 with linespoints title 'fixed replication', \
     './fig7_budget.dat' index 0 using 1:4 with linespoints title 'Hydra', \
     './fig7_budget.dat' index 0 using 1:5 with linespoints title 'MoEntwine', \
     './fig7_budget.dat' index 0 using 1:6 with linespoints title 'PIMoE', \
     './fig7_budget.dat' index 0 using 1:7 with linespoints title 'HCRMap'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './fig7_budget.svg'
replot
set output
