/* mlp.c - see mlp.h. */
#include "mlp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char magic[8] = {'O', 'L', 'C', 'M', 'L', 'P', '1', '\n'};
/* The example model's widths: inputs, then each layer's outputs. */
static const uint32_t model_width[] = {256, 512, 512, 128};

/* Small multiples of 1/16: exact in float, so the sums differ from the
 * reference only by the order of additions. */
static float weight(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (float)((int)((*state >> 16) % 17u) - 8) / 16.0f;
}

int mlp_write(const char *path, char *why, size_t why_size) {
  uint32_t layers = (uint32_t)(sizeof model_width / sizeof model_width[0]) - 1, state = 42, l;
  FILE *f = fopen(path, "wb");
  int ok;
  if (f == NULL) {
    snprintf(why, why_size, "cannot create %s: %s", path, strerror(errno));
    return -1;
  }
  ok = fwrite(magic, 1, sizeof magic, f) == sizeof magic && fwrite(&layers, 4, 1, f) == 1 &&
       fwrite(model_width, 4, layers + 1, f) == layers + 1;
  for (l = 0; ok && l < layers; l++) {
    size_t i, count = (size_t)model_width[l] * model_width[l + 1];
    for (i = 0; ok && i < count; i++) {
      float w = weight(&state);
      ok = fwrite(&w, sizeof w, 1, f) == 1;
    }
  }
  if (fclose(f) != 0 || !ok) {
    snprintf(why, why_size, "cannot write %s", path);
    remove(path);
    return -1;
  }
  return 0;
}

static unsigned char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  long n;
  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf != NULL)
    *size = (size_t)n;
  fclose(f);
  return buf;
}

static int mlp_parse(mlp *m) {
  size_t off = sizeof magic + 4, need;
  uint32_t l;
  if (m->size < off || memcmp(m->bytes, magic, sizeof magic) != 0)
    return -1;
  memcpy(&m->layers, m->bytes + sizeof magic, 4);
  if (m->layers < 1 || m->layers > MLP_MAX_LAYERS || m->size < off + 4 * (m->layers + 1))
    return -1;
  memcpy(m->width, m->bytes + off, 4 * (m->layers + 1));
  off += 4 * (m->layers + 1);
  for (l = 0; l < m->layers; l++) {
    if (m->width[l] < 1 || m->width[l] > 65536 || m->width[l + 1] < 1 || m->width[l + 1] > 65536 ||
        off % sizeof(float) != 0)
      return -1;
    need = (size_t)m->width[l] * m->width[l + 1] * sizeof(float);
    if (m->size - off < need)
      return -1;
    m->weights[l] = (float *)(void *)(m->bytes + off);
    off += need;
  }
  return off == m->size ? 0 : -1;
}

int mlp_read(mlp *m, const char *path, char *why, size_t why_size) {
  memset(m, 0, sizeof *m);
  m->bytes = slurp(path, &m->size);
  if (m->bytes == NULL) {
    snprintf(why, why_size, "cannot read %s", path);
    return -1;
  }
  if (mlp_parse(m) != 0) {
    snprintf(why, why_size, "%s is not a model of this example", path);
    mlp_free(m);
    return -1;
  }
  return 0;
}

void mlp_free(mlp *m) {
  free(m->bytes);
  memset(m, 0, sizeof *m);
}

void mlp_input(float *x, size_t count) {
  uint32_t state = 7;
  size_t i;
  for (i = 0; i < count; i++)
    x[i] = weight(&state);
}

int mlp_reference(const mlp *m, int64_t batch, const float *x, float *out) {
  size_t widest = 0, l;
  double *cur, *next;
  int64_t r;
  for (l = 0; l <= m->layers; l++)
    widest = m->width[l] > widest ? m->width[l] : widest;
  cur = malloc(widest * sizeof *cur);
  next = malloc(widest * sizeof *next);
  if (cur == NULL || next == NULL) {
    free(cur);
    free(next);
    return -1;
  }
  for (r = 0; r < batch; r++) {
    size_t i, j;
    for (i = 0; i < m->width[0]; i++)
      cur[i] = x[(size_t)r * m->width[0] + i];
    for (l = 0; l < m->layers; l++) {
      size_t in = m->width[l], outw = m->width[l + 1];
      for (j = 0; j < outw; j++) {
        double acc = 0;
        for (i = 0; i < in; i++)
          acc += cur[i] * (double)m->weights[l][i * outw + j];
        next[j] = l + 1 < m->layers && acc < 0 ? 0 : acc;
      }
      memcpy(cur, next, outw * sizeof *cur);
    }
    for (j = 0; j < m->width[m->layers]; j++)
      out[(size_t)r * m->width[m->layers] + j] = (float)cur[j];
  }
  free(cur);
  free(next);
  return 0;
}

double mlp_max_error(const float *got, const float *want, size_t count) {
  double diff = 0, scale = 0;
  size_t i;
  for (i = 0; i < count; i++) {
    double d = fabs((double)got[i] - (double)want[i]);
    diff = d > diff || isnan(d) ? d : diff;
    scale = fabs((double)want[i]) > scale ? fabs((double)want[i]) : scale;
  }
  return scale > 0 ? diff / scale : diff;
}
