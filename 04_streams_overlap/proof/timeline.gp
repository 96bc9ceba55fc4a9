# 04_streams_overlap/timeline.gp - draws the lesson's CSV (--csv FILE) as timelines, one
# panel per run, one row per stream: copies in blue, kernels green, copies out red.
#   gnuplot -e "csv='timeline.csv'; png='timeline.png'" timeline.gp
# or: make -C 04_streams_overlap chart CSV=timeline.csv [PNG=timeline.png]
if (!exists("csv")) csv = 'timeline_h100.csv'
if (!exists("png")) png = 'timeline_h100.png'
set datafile separator ','

# The widest stream count in the file, the device time span of the pinned runs.
stats csv using 2 nooutput
maxn = int(STATS_max)
stats csv using (strcol(4) eq "pinned" ? $10 : 0) nooutput
xmax_pinned = STATS_max

runs = sprintf("pinned-sequential pinned-per-stream-%d pinned-by-stage-%d pinned-per-stream-legacy-%d pageable-per-stream-%d", maxn, maxn, maxn, maxn)
titles = "in_sequence|per_stream:_copy_in,_kernel,_copy_out_of_each_chunk|by_stage:_all_copies_in,_all_kernels,_all_copies_out|per_stream,_with_one_legacy-default-stream_memset_between_streams|pageable_host_memory_(malloc),_per_stream"
title_of(k) = system(sprintf("echo '%s' | cut -d'|' -f%d | tr _ ' '", titles, k))
color(op) = op eq "H2D" ? 0x1f77b4 : op eq "kernel" ? 0x2ca02c : 0xd62728
array total[5]
do for [k=1:5] {
    run = word(runs, k)
    stats csv using (strcol(1) eq run ? $10 : 0) nooutput
    total[k] = STATS_max
}

set terminal pngcairo size 1100,1300 font ",10"
set output png
set multiplot layout 5,1 title sprintf("Copies and kernels in %d streams (device time, ms)", maxn) font ",13"
set style fill solid 0.9 noborder
set xlabel "ms"
set ylabel "stream"
set ytics 1
set grid xtics
set key outside right top
do for [k=1:5] {
    run = word(runs, k)
    n = (k == 1) ? 0 : maxn
    set yrange [n + 0.6 : ((k == 1) ? -0.6 : 0.4)]
    if (k == 5) { set xrange [0 : *] } else { set xrange [0 : xmax_pinned] }
    set title sprintf("%s: %.2f ms", title_of(k), total[k])
    if (k == 1) {
        plot csv using (strcol(1) eq run ? ($9 + $10) / 2 : NaN):6:(($10 - $9) / 2):(0.35):(color(strcol(8))) \
                 with boxxyerror lc rgb variable notitle, \
             keyentry with boxes lc rgb "#1f77b4" title "copy in (H2D)", \
             keyentry with boxes lc rgb "#2ca02c" title "kernel", \
             keyentry with boxes lc rgb "#d62728" title "copy out (D2H)"
    } else {
        plot csv using (strcol(1) eq run ? ($9 + $10) / 2 : NaN):6:(($10 - $9) / 2):(0.35):(color(strcol(8))) \
                 with boxxyerror lc rgb variable notitle
    }
}
unset multiplot
