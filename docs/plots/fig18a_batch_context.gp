# fig18a_batch_context: written by strata-eval run; gnuplot fig18a_batch_context.gp (in this directory)
set datafile missing 'nan'
set xlabel 'decode batch (sequences)' noenhanced
set ylabel 'Stratum-L tokens/s / H100 tokens/s (ratio)' noenhanced
set logscale x
set grid
set key outside right top noenhanced
set title 'Stratum-L vs H100 SXM5 decode speedup, Mixtral 8x7B'."\n".'(Stratum Fig. 18a)' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './fig18a_batch_context.png'
plot './fig18a_batch_context.dat' index 0 using 1:2 with linespoints title 'context 512 tokens', \
     './fig18a_batch_context.dat' index 1 using 1:2 with linespoints title 'context 1024 tokens', \
     './fig18a_batch_context.dat' index 2 using 1:2 with linespoints title 'context 2048 tokens', \
     './fig18a_batch_context.dat' index 3 using 1:2 with linespoints title 'context 4096 tokens'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './fig18a_batch_context.svg'
replot
set output
