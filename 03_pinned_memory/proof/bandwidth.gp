# 03_pinned_memory/proof/bandwidth.gp - bandwidth against copy size for each kind of host memory.
# Run through the Makefile:  make chart CSV=file.csv [PNG=file.png]
# (gnuplot -e "csv='file.csv'; png='file.png'" proof/bandwidth.gp)
if (!exists("csv")) csv = 'bandwidth.csv'
if (!exists("png")) png = 'bandwidth.png'

set datafile separator ','
set terminal pngcairo size 1100,650 font ',11'
set output png

# The first line of the CSV: # 03_pinned_memory sweep on "CARD"; link_gbps=63.02
card = system(sprintf("sed -n '1s/.*on \"\\([^\"]*\\)\".*/\\1/p' '%s'", csv))
link = real(system(sprintf("sed -n '1s/.*link_gbps=\\([0-9.]*\\).*/\\1/p' '%s'", csv)))

set title sprintf('Host <-> device copies on %s (median of the repetitions)', card)
set xlabel 'copy size (bytes)'
set ylabel 'bandwidth (GB/s = 1e9 B/s)'
set logscale x 2
set format x "%.0b %BB"
set key right center
set grid
set yrange [0:*]
if (link > 0) set yrange [0:link * 1.12]

sel(k, d) = (strcol(1) eq k && strcol(2) eq d) ? column(5) : NaN
kinds = 'pageable pinned write-combined registered'
colors = '#d62728 #1f77b4 #2ca02c #9467bd'

if (link > 0) {
    set arrow from graph 0, first link to graph 1, first link nohead dt 3 lw 1.5 lc rgb '#555555'
    set label sprintf('PCIe theoretical %.1f GB/s per direction', link) at graph 0.02, first link offset 0, 0.7
}

plot for [i=1:4] csv skip 2 using 3:(sel(word(kinds, i), 'H2D')) with linespoints \
         lw 2 pt 7 ps 0.6 lc rgb word(colors, i) title word(kinds, i).' H2D', \
     for [i=1:4] csv skip 2 using 3:(sel(word(kinds, i), 'D2H')) with linespoints \
         lw 2 dt 2 pt 5 ps 0.6 lc rgb word(colors, i) title word(kinds, i).' D2H'
