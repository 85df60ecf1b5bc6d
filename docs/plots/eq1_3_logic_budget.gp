# eq1_3_logic_budget: written by strata-eval run; gnuplot eq1_3_logic_budget.gp (in this directory)
set datafile missing 'nan'
set title 'Stratum-L logic die: P_logic vs MACs and clock, cap 45 W (Stratum Eq. 1-3)' noenhanced
set xlabel 'MAC units N_mac' noenhanced
set ylabel 'P_logic (W); Eq. 1 cap 45 W' noenhanced
set grid
set key outside right top noenhanced
set terminal pngcairo size 960,600 noenhanced
set output './eq1_3_logic_budget.png'
plot './eq1_3_logic_budget.dat' index 0 using 1:2 with linespoints title 'f_GHz = 0.5', \
     './eq1_3_logic_budget.dat' index 1 using 1:2 with linespoints title 'f_GHz = 0.75', \
     './eq1_3_logic_budget.dat' index 2 using 1:2 with linespoints title 'f_GHz = 1', \
     './eq1_3_logic_budget.dat' index 3 using 1:2 with linespoints title 'f_GHz = 1.25', \
     './eq1_3_logic_budget.dat' index 4 using 1:2 with linespoints title 'f_GHz = 1.5'
set terminal svg size 960,600 noenhanced
set output './eq1_3_logic_budget.svg'
replot
set output
