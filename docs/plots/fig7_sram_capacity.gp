# fig7_sram_capacity: written by strata-eval run; gnuplot fig7_sram_capacity.gp (in this directory)
set datafile missing 'nan'
set xlabel 'SRAM capacity / HCRMap Table 1’s' noenhanced
set ylabel 'latency / single-copy static (ratio)' noenhanced
set logscale x
set grid
set key outside right top noenhanced
set title 'Latency vs SRAM capacity, DeepSeek-V2-Lite prefill,'."\n".'ESFT trace (HCRMap Fig. 7)' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './fig7_sram_capacity.png'
plot './fig7_sram_capacity.dat' index 0 using 1:2 with linespoints title 'single-copy static', \
     './fig7_sram_capacity.dat' index 0 using 1:3 with linespoints title 'fixed replication', \
     './fig7_sram_capacity.dat' index 0 using 1:4 with linespoints title 'Hydra', \
     './fig7_sram_capacity.dat' index 0 using 1:5 with linespoints title 'MoEntwine', \
     './fig7_sram_capacity.dat' index 0 using 1:6 with linespoints title 'PIMoE', \
     './fig7_sram_capacity.dat' index 0 using 1:7 with linespoints title 'HCRMap'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './fig7_sram_capacity.svg'
replot
set output
