# Written by `nvscale report`: run `gnuplot plots.gp` in this directory to redraw the plots.
# Images go to NAME.svg.tmp / NAME.png.tmp; nvscale renames them once gnuplot has succeeded.

set terminal svg size 900,540 noenhanced font 'Sans,11' background rgb 'white'

reset
set output 'busbw_all_reduce.svg.tmp'
set title 'all_reduce: bus bandwidth vs message size, per GPU count and transport'
set grid
set key top left
set xlabel 'message size (bytes)'
set ylabel 'busbw (GB/s, log scale)'
set logscale x 2
set logscale y 10
set format x '%.0b%B'
set format y '%g'
set key below
plot 'busbw_all_reduce.dat' index 0 using 1:2 with lines dt 2 lw 2 title 'N=2 P2P, vm', \
     'busbw_all_reduce.dat' index 1 using 1:2 with lines dt 2 lw 2 title 'bound N=2: NV18 478 GB/s (P2P over NV18, vm)', \
     'busbw_all_reduce.dat' index 2 using 1:2 with linespoints title 'N=2 NET/Socket, vm/vnode0'
unset output

reset
set output 'busbw_broadcast.svg.tmp'
set title 'broadcast: bus bandwidth vs message size, per GPU count and transport'
set grid
set key top left
set xlabel 'message size (bytes)'
set ylabel 'busbw (GB/s, log scale)'
set logscale x 2
set logscale y 10
set format x '%.0b%B'
set format y '%g'
set key below
plot 'busbw_broadcast.dat' index 0 using 1:2 with lines dt 2 lw 2 title 'N=2 P2P, vm', \
     'busbw_broadcast.dat' index 1 using 1:2 with lines dt 2 lw 2 title 'bound N=2: NV18 478 GB/s (P2P over NV18, vm)', \
     'busbw_broadcast.dat' index 2 using 1:2 with linespoints title 'N=2 NET/Socket, vm/vnode0'
unset output

reset
set output 'efficiency.svg.tmp'
set title 'scaling efficiency vs GPU count'
set grid
set key top left
set xlabel 'GPUs (N)'
set ylabel 'efficiency (%)'
set logscale x 2
set xrange [0.8:2.5]
set yrange [0:110]
set key bottom left
set xtics (1, 2)
plot 'efficiency.dat' index 0 using 1:2 with linespoints title 'training step (bert-large), P2P over NV18, vm'
unset output

reset
set output 'step_breakdown.svg.tmp'
set title 'training step time: compute and exposed communication'
set grid
set key top left
set ylabel 'time per step (ms)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set yrange [0:*]
set xtics rotate by -30
plot 'step_breakdown.dat' using 2:xtic(1) title 'compute', '' using 3 title 'exposed communication'
unset output

if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
  set terminal pngcairo size 900,540 noenhanced font 'Sans,10' background rgb 'white'
} else {
  set terminal png size 900,540 noenhanced
}

reset
set output 'busbw_all_reduce.png.tmp'
set title 'all_reduce: bus bandwidth vs message size, per GPU count and transport'
set grid
set key top left
set xlabel 'message size (bytes)'
set ylabel 'busbw (GB/s, log scale)'
set logscale x 2
set logscale y 10
set format x '%.0b%B'
set format y '%g'
set key below
plot 'busbw_all_reduce.dat' index 0 using 1:2 with lines dt 2 lw 2 title 'N=2 P2P, vm', \
     'busbw_all_reduce.dat' index 1 using 1:2 with lines dt 2 lw 2 title 'bound N=2: NV18 478 GB/s (P2P over NV18, vm)', \
     'busbw_all_reduce.dat' index 2 using 1:2 with linespoints title 'N=2 NET/Socket, vm/vnode0'
unset output

reset
set output 'busbw_broadcast.png.tmp'
set title 'broadcast: bus bandwidth vs message size, per GPU count and transport'
set grid
set key top left
set xlabel 'message size (bytes)'
set ylabel 'busbw (GB/s, log scale)'
set logscale x 2
set logscale y 10
set format x '%.0b%B'
set format y '%g'
set key below
plot 'busbw_broadcast.dat' index 0 using 1:2 with lines dt 2 lw 2 title 'N=2 P2P, vm', \
     'busbw_broadcast.dat' index 1 using 1:2 with lines dt 2 lw 2 title 'bound N=2: NV18 478 GB/s (P2P over NV18, vm)', \
     'busbw_broadcast.dat' index 2 using 1:2 with linespoints title 'N=2 NET/Socket, vm/vnode0'
unset output

reset
set output 'efficiency.png.tmp'
set title 'scaling efficiency vs GPU count'
set grid
set key top left
set xlabel 'GPUs (N)'
set ylabel 'efficiency (%)'
set logscale x 2
set xrange [0.8:2.5]
set yrange [0:110]
set key bottom left
set xtics (1, 2)
plot 'efficiency.dat' index 0 using 1:2 with linespoints title 'training step (bert-large), P2P over NV18, vm'
unset output

reset
set output 'step_breakdown.png.tmp'
set title 'training step time: compute and exposed communication'
set grid
set key top left
set ylabel 'time per step (ms)'
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set yrange [0:*]
set xtics rotate by -30
plot 'step_breakdown.dat' using 2:xtic(1) title 'compute', '' using 3 title 'exposed communication'
unset output

