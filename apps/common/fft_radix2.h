/* fft_radix2.h — the complex type and the in-place iterative radix-2 FFT
 * shared by the FFT programs (fft: SPLASH-2's six-step FFT; fft3d: NAS FT).
 * w[k] = exp(-2 pi i k / n) for k < n/2; dir = +1 forward, -1 inverse
 * (conjugate roots, no scaling). */
#ifndef LOOM_APPS_FFT_RADIX2_H
#define LOOM_APPS_FFT_RADIX2_H

typedef struct {
  double re, im;
} cplx;

static inline void fft_radix2(cplx* a, long n, const cplx* w, int dir) {
  for (long i = 1, j = 0; i < n; i++) { /* bit reversal */
    long bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j |= bit;
    if (i < j) {
      cplx t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
  for (long len = 2; len <= n; len <<= 1) {
    long half = len >> 1, step = n / len;
    for (long s = 0; s < n; s += len) {
      for (long k = 0; k < half; k++) {
        cplx ww = w[k * step];
        if (dir < 0) ww.im = -ww.im;
        cplx u = a[s + k], v = a[s + k + half];
        cplx t = {v.re * ww.re - v.im * ww.im, v.re * ww.im + v.im * ww.re};
        a[s + k].re = u.re + t.re;
        a[s + k].im = u.im + t.im;
        a[s + k + half].re = u.re - t.re;
        a[s + k + half].im = u.im - t.im;
      }
    }
  }
}
#endif
