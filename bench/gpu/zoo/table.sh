#!/usr/bin/env bash
# bench/gpu/zoo/table.sh ROWS PROGRAMS — the markdown table of a device run (run.sh device): one row per
# ZOO_ROW line of ROWS (zoo_driver.cu's fields), the nvcc times from PROGRAMS/NAME/nvcc_{device,here}.txt,
# then the geometric mean of fused / roofline over the programs that ran and what exceeds the goals
# (issue 26: geometric mean <= 1.3, no program above 2.0, nvcc under 20 s).
set -uo pipefail
rows="$1" programs="$2"
{
  while IFS='|' read -r _ name size fused unfused roof bytes gbps check cs; do
    dev="$(cut -d' ' -f1,2 "$programs/$name/nvcc_device.txt" 2>/dev/null)"
    hereT="$(cut -d' ' -f1 "$programs/$name/nvcc_here.txt" 2>/dev/null)"
    echo "$name|$size|$fused|$unfused|$roof|$bytes|$gbps|$check|$cs|${dev:-- -}|${hereT:--}"
  done < "$rows"
} | awk -F'|' '
  function num(x) { return x ~ /^[0-9.]+$/ && x + 0 > 0 }
  BEGIN {
    print "| program | size | fused ms | --no-fuse ms | roofline ms | fused / roofline | --no-fuse / fused | nvcc s fused (device / here) | nvcc s --no-fuse | C s | check |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  }
  {
    split($10, nv, " ")
    ratio = num($3) && num($5) ? sprintf("%.2f", $3 / $5) : "-"
    speed = num($3) && num($4) ? sprintf("%.2f", $4 / $3) : "-"
    printf "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s |\n", $1, $2, num($3) ? sprintf("%.3f", $3) : "-",
           num($4) ? sprintf("%.3f", $4) : "-", num($5) ? sprintf("%.3f", $5) : "-", ratio, speed, nv[1], $11, nv[2], $9, $8
    if (ratio != "-") { n++; logsum += log($3 / $5); if ($3 / $5 > 2.0) over = over " " $1 }
    if (ratio != "-" && num($4)) { m++; logsp += log($4 / $3) }
    if (nv[1] + 0 >= 20) slow = slow " " $1
    if ($8 != "ok") bad = bad " " $1
    if (num($7)) bw = $7
  }
  END {
    print ""
    if (n) {
      printf "Geometric mean of fused / roofline over %d programs: **%.2f** (goal <= 1.3)", n, exp(logsum / n)
      if (m) printf "; of --no-fuse / fused: %.2f", exp(logsp / m)
      print "."
    } else print "No program was timed."
    print "Above 2.0 x the roofline:" (over == "" ? " none" : over) ". nvcc of the fused CUDA at 20 s or more on the device:" (slow == "" ? " none" : slow) "."
    print "Checks (fused = --no-fuse = C at the size shown, and = the evaluator at zoo.txt'"'"'s test sizes): " (bad == "" ? "all passed" : "FAILED or not run:" bad) "."
    if (bw) printf "Roofline: inputs read once and outputs written once at the device-to-device copy bandwidth measured in the same run (%s GB/s in the last program'"'"'s run).\n", bw
  }'
