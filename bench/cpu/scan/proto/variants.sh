#!/usr/bin/env bash
# bench/cpu/scan/proto/variants.sh GEN OUT — hand edits of formac's generated C (GEN: the
# bench's build/formac), each a measured proposal for Scan_C, written to OUT with the
# kernel renamed. Every edit keeps the results bit for bit (the harness checks).
set -euo pipefail
gen="$1" out="$2"
mkdir -p "$out"
rename() { sed "s/$1/$2/g" "$gen/$1.h" > "$out/$2.h"; }
for p in sat8i sat8d satfd scancolf boxint15; do cp "$gen/$p.c" "$gen/$p.h" "$out/"; done
# The carry stacks of the generated prelude, for the one-sweep prototypes.
{ echo '#define FORMAC_HELPER static inline __attribute__((unused))'
  sed -n '/^\/\* The carry of a line scanned/,/formac_scan_l_group/p' "$gen/satfd.c"; } > "$out/prelude.h"
# 1. sat into int: sum in 32-bit unsigned in the output itself (int64 sums converted to int
#    are those sums mod 2^32), not in an int64 scratch image converted in the last pass.
sed -e 's/sat8i/sat8i_w32/g' \
    -e 's/long long\* const formac_acc = formac_scratch;/unsigned* const formac_acc = (unsigned*)I_2;/' \
    -e 's/long long formac_l\[64\], formac_e\[64\], formac_g\[64\]\[64\], formac_p\[64\]\[64\];/unsigned formac_l[64], formac_e[64], formac_g[64][64], formac_p[64][64];/' \
    -e 's/const long long formac_v = formac_acc\[formac_at + formac_j\];/const unsigned formac_v = formac_acc[formac_at + formac_j];/' \
    "$gen/sat8i.c" > "$out/sat8i_w32.c"
rename sat8i sat8i_w32
# 2. sat of u8 into double: sum in double in the output (exact: every partial sum of a
#    u8 image below 2^53 / 255 points is an integer below 2^53).
sed -e 's/sat8d/sat8d_dacc/g' \
    -e 's/long long\* const formac_acc = formac_scratch;/double* const formac_acc = I_2;/' \
    -e 's/long long formac_l\[64\], formac_e\[64\], formac_g\[64\]\[64\], formac_p\[64\]\[64\];/double formac_l[64], formac_e[64], formac_g[64][64], formac_p[64][64];/' \
    -e 's/const long long formac_v = formac_acc\[formac_at + formac_j\];/const double formac_v = formac_acc[formac_at + formac_j];/' \
    "$gen/sat8d.c" > "$out/sat8d_dacc.c"
rename sat8d sat8d_dacc
# 3. The strided pass with 512 lines side by side instead of 64 (kScanLanes).
lanes() { # program new L
  sed -e "s/$1/$2/g" -e "s/(formac_inner + 63) \/ 64/(formac_inner + $(($3 - 1))) \/ $3/" \
      -e "s/formac_w % formac_blocks \* 64/formac_w % formac_blocks * $3/" \
      -e "s/formac_inner - formac_j0 < 64 ? formac_inner - formac_j0 : 64/formac_inner - formac_j0 < $3 ? formac_inner - formac_j0 : $3/" \
      -e "s/formac_l\[64\], formac_e\[64\], formac_g\[64\]\[64\], formac_p\[64\]\[64\]/formac_l[$3], formac_e[$3], formac_g[24][$3], formac_p[24][$3]/" \
      "$gen/$1.c" > "$out/$2.c"
  rename "$1" "$2"
}
lanes satfd satfd_l512 512
lanes scancolf scancolf_l512 512
# 4. The box of boxint15 on the one-sweep SAT (sat_fused.c) instead of the two passes.
sed -e 's/boxint15/boxint15_fsat/g' \
    -e 's/^  boxint15_fsat_stage1_I_2(img, ws->I_2, ws->partials1, M, N);/  satfd_fused(img, ws->I_2, (int)M, (int)N, omp_get_max_threads());/' \
    "$gen/boxint15.c" > "$out/boxint15_fsat.c"
sed -i '1i #include <omp.h>\nvoid satfd_fused(const float* img, double* out, int M, int N, int T);' "$out/boxint15_fsat.c"
rename boxint15 boxint15_fsat
grep -q 'satfd_fused(img' "$out/boxint15_fsat.c" && grep -q 'unsigned\* const formac_acc' "$out/sat8i_w32.c" &&
  grep -q 'double\* const formac_acc = I_2' "$out/sat8d_dacc.c" && grep -q 'formac_l\[512\]' "$out/satfd_l512.c" ||
  { echo "variants.sh: an edit did not apply (the generated C changed)" >&2; exit 1; }
