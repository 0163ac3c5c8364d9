/* Writes src/interp/torch/ops/rsqrt14.delta: VRSQRT14 (AVX-512) of every float in [0.5, 2) as
 * this machine computes it. The result depends on the exponent's parity and the top 15
 * mantissa bits only (checked exhaustively over all 2^24 mantissas: the one exception is an
 * exact power of 4, whose reciprocal square root is exact), and has 16 mantissa bits.
 * Entry i = parity * 32768 + (mantissa >> 8): the result's mantissa bits 7..22, u16. Written
 * delta-coded (it compresses to under 1 KB): per parity, the first entry as a little-endian
 * u16, then each next entry minus the one before as a wrapping signed byte. Parity 0 (x in [0.5, 1)): results in [1, 2); parity 1 (x in [1, 2)): in [0.5, 1).
 * Build: gcc -O2 -mavx512f gen_rsqrt14.c -o gen && ./gen rsqrt14.delta */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static float rs14(float x) { __m128 v = _mm_set_ss(x); return _mm_cvtss_f32(_mm_rsqrt14_ss(v, v)); }
int main(int argc, char **argv) {
  FILE *o = fopen(argc > 1 ? argv[1] : "rsqrt14.delta", "wb");
  if (!o) return 1;
  uint16_t prev = 0;
  for (uint32_t par = 0; par < 2; par++)
    for (uint32_t m = 0; m < (1u << 15); m++) {
      /* the low bit set: an entry for the whole interval, not the exact power of 4 */
      uint32_t u = ((126u + par) << 23) | (m << 8) | 1u, r;
      float x, y;
      memcpy(&x, &u, 4);
      y = rs14(x);
      memcpy(&r, &y, 4);
      uint16_t s = (uint16_t)((r >> 7) & 0xffff);
      if (m == 0) {
        unsigned char b[2] = {(unsigned char)(s & 0xff), (unsigned char)(s >> 8)};
        fwrite(b, 1, 2, o);
      } else {
        unsigned char d = (unsigned char)(uint16_t)(s - prev);
        fwrite(&d, 1, 1, o);
      }
      prev = s;
    }
  return fclose(o);
}
