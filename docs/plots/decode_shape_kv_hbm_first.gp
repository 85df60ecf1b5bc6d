# decode_shape_kv_hbm_first: written by strata-eval run; gnuplot decode_shape_kv_hbm_first.gp (in this directory)
set datafile missing 'nan'
set xlabel 'decode context per sequence (tokens)' noenhanced
set ylabel 'time per decode step (us)' noenhanced
set logscale x
set grid
set key outside right top noenhanced
set title 'Decode step vs context, DeepSeek-V2-Lite, 512 sequences,'."\n".'KV hbm_first' noenhanced
set terminal pngcairo size 960,600 font 'Sans,12' noenhanced
set output './decode_shape_kv_hbm_first.png'
plot './decode_shape_kv_hbm_first.dat' index 0 using 1:2 with linespoints title 'static: routed experts', \
     './decode_shape_kv_hbm_first.dat' index 0 using 1:3 with linespoints title 'HCRMap: routed experts', \
     './decode_shape_kv_hbm_first.dat' index 0 using 1:4 with linespoints title 'non-routed, any policy'
set terminal svg size 960,600 font 'Arial,12' noenhanced
set output './decode_shape_kv_hbm_first.svg'
replot
set output
