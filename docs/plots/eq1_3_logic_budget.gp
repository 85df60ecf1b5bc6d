# eq1_3_logic_budget: written by strata-eval run; gnuplot eq1_3_logic_budget.gp (in this directory)
set datafile missing 'nan'
set xlabel 'MAC units N_mac' noenhanced
set ylabel 'P_logic (W); Eq. 1 cap 45 W' noenhanced
set grid
set key outside right top noenhanced
set title 'Stratum-L logic die: P_logic vs MACs and clock, cap 45 W'."\n".'(Stratum Eq. 1-3)' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './eq1_3_logic_budget.png'
plot './eq1_3_logic_budget.dat' index 0 using 1:2 with linespoints title 'f_logic 0.5 GHz', \
     './eq1_3_logic_budget.dat' index 1 using 1:2 with linespoints title 'f_logic 0.75 GHz', \
     './eq1_3_logic_budget.dat' index 2 using 1:2 with linespoints title 'f_logic 1 GHz', \
     './eq1_3_logic_budget.dat' index 3 using 1:2 with linespoints title 'f_logic 1.25 GHz', \
     './eq1_3_logic_budget.dat' index 4 using 1:2 with linespoints title 'f_logic 1.5 GHz'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './eq1_3_logic_budget.svg'
replot
set output
