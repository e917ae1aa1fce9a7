/* tests/gpu/bigimage/bigc_main.c — formac's C on an image of more than 2^31 points (ctest
   c_bigimage): bigc.idsl on a 32769 x 65536 byte image that is 0 but at four points, two of
   them past linear index 2^31. The image is calloc'ed: its zero pages cost no memory. */
#include <stdio.h>
#include <stdlib.h>

#include "bigc.h"

int main(void) {
  const int M = 32769, N = 65536;
  const long long points = (long long)M * N; /* 2^31 + 2^16 */
  unsigned char* img = calloc((size_t)points, 1);
  unsigned char pick[32 * 64];
  long long sum = -1;
  if (!img) {
    printf("c_bigimage: cannot allocate %lld bytes\n", points);
    return 1;
  }
  img[1024LL * N + 1023] = 9;       /* pick[0][0] */
  img[(1LL << 31) - 1] = 3;         /* the last point below 2^31 */
  img[(1LL << 31) + 1023] = 5;      /* pick[31][0]: row 32768 */
  img[points - 1] = 7;              /* pick[31][63]: the last point */
  bigc(img, M, N, pick, &sum);
  int bad = 0;
  for (int i = 0; i < 32 * 64; i++) {
    int want = i == 0 ? 9 : i == 31 * 64 ? 5 : i == 31 * 64 + 63 ? 7 : 0;
    if (pick[i] != want) {
      printf("pick[%d][%d] = %d, expected %d\n", i / 64, i % 64, pick[i], want);
      bad++;
    }
  }
  if (sum != 24) {
    printf("sum %lld, expected 24\n", sum);
    bad++;
  }
  printf("c_bigimage: %lld points: %s\n", points, bad ? "FAILED" : "the sum and the down-sampled read are right");
  free(img);
  return bad != 0;
}
