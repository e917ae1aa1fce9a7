/* e2e_check: runs one batch of an e2e GPU bundle and compares its outputs with
   the evaluator's (tests/gpu/README.md; the bundle comes from e2e_gpu_bundle).

     e2e_check DIR VARIANT BATCH

   Runs DIR/build/bBATCH_VARIANT.x on the inputs in DIR/data with the outputs
   going to DIR/out/VARIANT/bBATCH (after a crash it starts again at the next
   program), then checks every case of that batch and variant listed in
   DIR/manifest.txt by the case's rule. Prints one FAIL line per failing case
   and "cases PASSED FAILED" last; exits 1 when a case failed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

enum { MAX_PARTS = 64, MAX_DIMS = 8, MAX_OUTPUTS = 16, MAX_PROGRAMS = 256, CALLS = 3 };

typedef enum { U8, I16, U16, I32, I64, F32, F64 } Kind;

typedef struct {
  char name[64]; /* field name; empty for a scalar element */
  Kind kind;
  size_t offset;
} Part;

typedef struct {
  char file[256]; /* the evaluator's bytes, in data/ */
  char type[512]; /* as the manifest spells it */
  Part parts[MAX_PARTS];
  int nparts;
  size_t size; /* bytes per element */
  long long extent[MAX_DIMS];
  int rank;
} Output;

typedef struct {
  char program[256], size[256];
  int id, run, approx;
  Output outputs[MAX_OUTPUTS];
  int noutputs;
} Case;

/* What the batch executable printed about one program. */
typedef struct {
  int id;
  int finished;    /* printed "done" */
  char crash[384]; /* how its run ended when it did not finish */
  char* notes;     /* every other line it printed, each prefixed "run R|" (-1: any run) */
} Program;

static void fatal(const char* what) {
  fprintf(stderr, "e2e_check: %s\n", what);
  exit(2);
}

/* ------------------------------------------------------------ manifest */
static int kindOf(const char* code, Kind* k, size_t* size) {
  static const struct { const char* code; Kind kind; size_t size; } kinds[] = {
      {"u8", U8, 1}, {"i16", I16, 2}, {"u16", U16, 2}, {"i32", I32, 4}, {"i64", I64, 8},
      {"f32", F32, 4}, {"f64", F64, 8}};
  size_t i;
  for (i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
    if (strcmp(code, kinds[i].code) == 0) {
      *k = kinds[i].kind;
      *size = kinds[i].size;
      return 1;
    }
  return 0;
}

/* FILE:TYPE:EXTENT; TYPE is a kind or {name:kind@offset,...}size. */
static int parseOutput(const char* spec, Output* o) {
  const char* first = strchr(spec, ':');
  const char* last = strrchr(spec, ':');
  char* p;
  size_t n;
  if (!first || first == last || (size_t)(first - spec) >= sizeof o->file ||
      (size_t)(last - first - 1) >= sizeof o->type)
    return 0;
  memcpy(o->file, spec, (size_t)(first - spec));
  o->file[first - spec] = '\0';
  memcpy(o->type, first + 1, (size_t)(last - first - 1));
  o->type[last - first - 1] = '\0';
  o->nparts = 0;
  if (o->type[0] != '{') {
    o->nparts = 1;
    o->parts[0].name[0] = '\0';
    o->parts[0].offset = 0;
    if (!kindOf(o->type, &o->parts[0].kind, &o->size)) return 0;
  } else {
    char buf[512];
    char* field;
    char* save = NULL;
    char* close;
    strcpy(buf, o->type + 1);
    close = strchr(buf, '}');
    if (!close) return 0;
    *close = '\0';
    o->size = strtoul(close + 1, NULL, 10);
    for (field = strtok_r(buf, ",", &save); field; field = strtok_r(NULL, ",", &save)) {
      Part* part = &o->parts[o->nparts];
      char* colon = strchr(field, ':');
      char* at = strchr(field, '@');
      if (o->nparts == MAX_PARTS || !colon || !at || at < colon || (size_t)(colon - field) >= sizeof part->name)
        return 0;
      *colon = *at = '\0';
      strcpy(part->name, field);
      if (!kindOf(colon + 1, &part->kind, &n)) return 0;
      part->offset = strtoul(at + 1, NULL, 10);
      ++o->nparts;
    }
  }
  o->rank = 0;
  for (p = (char*)last + 1; *p && o->rank < MAX_DIMS; p += *p == 'x') o->extent[o->rank++] = strtoll(p, &p, 10);
  return o->rank > 0;
}

/* Reads the batch's program ids and the cases of this variant and batch. */
static void readManifest(const char* dir, const char* variant, int batch, Program* programs, int* nprograms,
                         Case** cases, int* ncases) {
  char path[4096];
  char* line = NULL;
  size_t cap = 0;
  int capacity = 0;
  FILE* f;
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  if (!(f = fopen(path, "r"))) fatal("cannot read manifest.txt");
  *nprograms = *ncases = 0;
  *cases = NULL;
  while (getline(&line, &cap, f) > 0) {
    char* save = NULL;
    char* word = strtok_r(line, " \n", &save);
    if (!word) continue;
    if (strcmp(word, "batch") == 0) {
      if (atoi(strtok_r(NULL, " \n", &save)) != batch) continue;
      while ((word = strtok_r(NULL, " \n", &save)) && *nprograms < MAX_PROGRAMS) {
        programs[*nprograms].id = atoi(word);
        programs[*nprograms].finished = 0;
        programs[*nprograms].crash[0] = '\0';
        programs[(*nprograms)++].notes = NULL;
      }
    } else if (strcmp(word, "case") == 0) {
      Case c;
      char* fields[8];
      int i;
      for (i = 0; i < 8; ++i)
        if (!(fields[i] = strtok_r(NULL, " \n", &save))) fatal("a case line is short");
      /* PROGRAM SIZE VARIANT BATCH ID RUN RULE INPUTS */
      if (strcmp(fields[2], variant) != 0 || atoi(fields[3]) != batch) continue;
      snprintf(c.program, sizeof c.program, "%s", fields[0]);
      snprintf(c.size, sizeof c.size, "%s", fields[1]);
      c.id = atoi(fields[4]);
      c.run = atoi(fields[5]);
      c.approx = strcmp(fields[6], "approx") == 0 ? 1 : strcmp(fields[6], "approx-float") == 0 ? 2 : 0;
      if (!c.approx && strcmp(fields[6], "exact") != 0) fatal("a case has an unknown rule");
      c.noutputs = 0;
      while ((word = strtok_r(NULL, " \n", &save)) && c.noutputs < MAX_OUTPUTS)
        if (!parseOutput(word, &c.outputs[c.noutputs++])) fatal("a case has a malformed output");
      if (*ncases == capacity) {
        capacity = capacity ? 2 * capacity : 64;
        *cases = (Case*)realloc(*cases, (size_t)capacity * sizeof(Case));
        if (!*cases) fatal("out of memory");
      }
      (*cases)[(*ncases)++] = c;
    }
  }
  free(line);
  fclose(f);
  if (*nprograms == 0) fatal("no such batch in manifest.txt");
}

/* ------------------------------------------------------------ running */
static void addNote(Program* g, int run, const char* text) {
  size_t old = g->notes ? strlen(g->notes) : 0;
  char prefix[32];
  snprintf(prefix, sizeof prefix, "run %d|", run);
  g->notes = (char*)realloc(g->notes, old + strlen(prefix) + strlen(text) + 2);
  if (!g->notes) fatal("out of memory");
  sprintf(g->notes + old, "%s%s\n", prefix, text);
}

/* The run a harness note is about: "... of run R ..." or a file pP_rR_...; -1
   for anything else the program printed (the generated code's diagnostics). */
static int runOfNote(const char* line) {
  const char* at;
  int p, r;
  if (strncmp(line, "note ", 5) != 0) return -1;
  if ((at = strstr(line, " of run "))) return atoi(at + 8);
  for (at = line; (at = strchr(at, 'p')); ++at)
    if (sscanf(at, "p%d_r%d_", &p, &r) == 2) return r;
  return -1;
}

/* Runs the batch from position `from`; returns where to go on (the end, or
   the position after a program that crashed or hung). */
static int runFrom(const char* dir, const char* exe, const char* outDir, Program* programs, int n, int from) {
  char cmd[8192], outside[256] = "";
  char* line = NULL;
  size_t cap = 0;
  int current = -1, status, pos;
  FILE* p;
  snprintf(cmd, sizeof cmd, "cd '%s' && OMP_WAIT_POLICY=passive timeout 120 '%s' data %d '%s' 2>&1", dir, exe, from,
           outDir);
  if (!(p = popen(cmd, "r"))) fatal("cannot start the batch");
  while (getline(&line, &cap, p) > 0) {
    line[strcspn(line, "\n")] = '\0';
    if (sscanf(line, "start %d", &pos) == 1 && pos >= 0 && pos < n) {
      current = pos;
    } else if (sscanf(line, "done %d", &pos) == 1 && pos >= 0 && pos < n) {
      programs[pos].finished = 1;
      current = -1;
    } else if (current >= 0) {
      addNote(&programs[current], runOfNote(line), line);
    } else if (!outside[0]) {
      snprintf(outside, sizeof outside, ": %s", line);
    }
  }
  free(line);
  status = pclose(p);
  status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (current >= 0) {
    snprintf(programs[current].crash, sizeof programs[current].crash, "crashed or hung (exit status %d)", status);
    return current + 1;
  }
  for (pos = from; pos < n; ++pos) /* none if the batch ran to its end */
    if (!programs[pos].finished)
      snprintf(programs[pos].crash, sizeof programs[pos].crash, "the batch stopped before it (exit status %d)%s",
               status, outside);
  return n;
}

/* ------------------------------------------------------------ comparing */
static unsigned char* readAll(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* bytes;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  bytes = (unsigned char*)malloc((size_t)n + 1);
  if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) fatal("cannot read an output file");
  fclose(f);
  *size = (size_t)n;
  return bytes;
}

static int partMatches(Kind k, const unsigned char* want, const unsigned char* got, int approx) {
  double w, g, tolerance;
  if (k == U8) return memcmp(want, got, 1) == 0;
  if (k == I16 || k == U16) return memcmp(want, got, 2) == 0;
  if (k == I32) return memcmp(want, got, 4) == 0;
  if (k == I64) return memcmp(want, got, 8) == 0;
  if (memcmp(want, got, k == F32 ? 4 : 8) == 0) return 1;
  if (k == F32) {
    float wf, gf;
    memcpy(&wf, want, 4);
    memcpy(&gf, got, 4);
    w = wf;
    g = gf;
    tolerance = ldexp(1.0, -21);
  } else {
    memcpy(&w, want, 8);
    memcpy(&g, got, 8);
    tolerance = approx == 2 ? ldexp(1.0, -18) : 1e-12;
  }
  if (isnan(w) && isnan(g)) return 1;
  if (!approx || !isfinite(w) || !isfinite(g)) return 0;
  return fabs(g - w) <= tolerance * fmax(fabs(w), 1.0);
}

static void describe(Kind k, const unsigned char* p, char* buf, size_t n) {
  short s;
  unsigned short us;
  int i;
  long long ll;
  float f;
  double d;
  unsigned int fb;
  unsigned long long db;
  switch (k) {
    case U8: snprintf(buf, n, "%u", *p); break;
    case I16: memcpy(&s, p, 2); snprintf(buf, n, "%d", s); break;
    case U16: memcpy(&us, p, 2); snprintf(buf, n, "%u", us); break;
    case I32: memcpy(&i, p, 4); snprintf(buf, n, "%d", i); break;
    case I64: memcpy(&ll, p, 8); snprintf(buf, n, "%lld", ll); break;
    case F32:
      memcpy(&f, p, 4);
      memcpy(&fb, p, 4);
      snprintf(buf, n, "%.9g (0x%08x)", (double)f, fb);
      break;
    case F64:
      memcpy(&d, p, 8);
      memcpy(&db, p, 8);
      snprintf(buf, n, "%.17g (0x%016llx)", d, db);
      break;
  }
}

/* Empty when `got` matches `want`; else the first element that does not. */
static void firstDifference(const Output* o, const unsigned char* want, const unsigned char* got, size_t bytes,
                            int approx, char* msg, size_t n) {
  size_t i, count = o->size ? bytes / o->size : 0;
  int part, d;
  msg[0] = '\0';
  for (i = 0; i < count; ++i)
    for (part = 0; part < o->nparts; ++part) {
      const Part* pt = &o->parts[part];
      size_t at = i * o->size + pt->offset, rest = i;
      char coords[256] = "", tmp[256], g[96], w[96];
      if (partMatches(pt->kind, want + at, got + at, approx)) continue;
      for (d = o->rank - 1; d >= 0; --d) {
        snprintf(tmp, sizeof tmp, "%llu%s%s", (unsigned long long)(rest % (size_t)o->extent[d]),
                 coords[0] ? "," : "", coords);
        strcpy(coords, tmp);
        rest /= (size_t)o->extent[d];
      }
      describe(pt->kind, got + at, g, sizeof g);
      describe(pt->kind, want + at, w, sizeof w);
      snprintf(msg, n, "element %zu [%s]%s%s: got %s, the evaluator %s", i, coords, pt->name[0] ? " field " : "",
               pt->name, g, w);
      return;
    }
}

/* The first line the program printed about run `run` or about no run in
   particular: a harness note without its "note ", anything else (the
   generated code's diagnostics) as "it printed: ..."; empty if none. */
static void firstNote(const Program* g, int run, char* buf, size_t n) {
  char prefix[32];
  const char* note;
  buf[0] = '\0';
  snprintf(prefix, sizeof prefix, "run %d|", run);
  for (note = g->notes; note && *note; note = strchr(note, '\n') + 1)
    if (strncmp(note, prefix, strlen(prefix)) == 0 || strncmp(note, "run -1|", 7) == 0) {
      const char* text = strchr(note, '|') + 1;
      int harness = strncmp(text, "note ", 5) == 0;
      if (harness) text += 5;
      snprintf(buf, n, "%s%.*s", harness ? "" : "it printed: ", (int)(strchr(text, '\n') - text), text);
      return;
    }
}

/* Empty when the case passes; else why not. */
static void checkCase(const char* dir, const char* outDir, const Case* c, const Program* g, char* msg, size_t n) {
  char path[8192], diff[1024], extent[128], note[512];
  int o, call, d;
  msg[0] = '\0';
  firstNote(g, c->run, note, sizeof note);
  if (!g->finished) {
    snprintf(msg, n, "%s%s%s", g->crash, note[0] ? ": " : "", note);
    return;
  }
  if (note[0]) {
    snprintf(msg, n, "%s", note);
    return;
  }
  for (o = 0; o < c->noutputs; ++o) {
    const Output* out = &c->outputs[o];
    size_t wantBytes, gotBytes, elements = 1;
    unsigned char *want, *got;
    extent[0] = '\0';
    for (d = 0; d < out->rank; ++d) {
      elements *= (size_t)out->extent[d];
      snprintf(extent + strlen(extent), sizeof extent - strlen(extent), "%s%lld", d ? "x" : "", out->extent[d]);
    }
    snprintf(path, sizeof path, "%s/data/%s", dir, out->file);
    if (!(want = readAll(path, &wantBytes)) || wantBytes != elements * out->size) {
      snprintf(msg, n, "data/%s is missing or not %zu bytes", out->file, elements * out->size);
      free(want);
      return;
    }
    for (call = 0; call < CALLS && !msg[0]; ++call) {
      snprintf(path, sizeof path, "%s/p%d_r%d_o%d_c%d.bin", outDir, c->id, c->run, o, call);
      if (!(got = readAll(path, &gotBytes))) {
        snprintf(msg, n, "output %d, call %d: no output file", o, call + 1);
      } else if (gotBytes != wantBytes) {
        snprintf(msg, n, "output %d, call %d: %zu bytes, the evaluator %zu", o, call + 1, gotBytes, wantBytes);
      } else {
        firstDifference(out, want, got, wantBytes, c->approx, diff, sizeof diff);
        if (diff[0]) snprintf(msg, n, "output %d (%s[%s]), call %d: %s", o, out->type, extent, call + 1, diff);
      }
      free(got);
    }
    free(want);
    if (msg[0]) return;
  }
}

static void makeDirs(const char* path) {
  char buf[4096];
  char* p;
  snprintf(buf, sizeof buf, "%s", path);
  for (p = buf + 1; *p; ++p)
    if (*p == '/') {
      *p = '\0';
      mkdir(buf, 0777);
      *p = '/';
    }
  mkdir(buf, 0777);
}

int main(int argc, char** argv) {
  static Program programs[MAX_PROGRAMS];
  const char *dir, *variant;
  char exe[256], outDir[256], path[4096], why[2048];
  Case* cases;
  int nprograms, ncases, batch, i, j, pos, passed = 0, failed = 0;
  FILE* f;
  if (argc != 4) fatal("usage: e2e_check DIR VARIANT BATCH");
  dir = argv[1];
  variant = argv[2];
  batch = atoi(argv[3]);
  readManifest(dir, variant, batch, programs, &nprograms, &cases, &ncases);
  snprintf(exe, sizeof exe, "build/b%d_%s.x", batch, variant);
  snprintf(outDir, sizeof outDir, "out/%s/b%d", variant, batch);
  snprintf(path, sizeof path, "%s/%s", dir, outDir);
  makeDirs(path);
  snprintf(path, sizeof path, "%s/%s", dir, exe);
  if ((f = fopen(path, "rb"))) {
    fclose(f);
    for (pos = 0; pos < nprograms;) pos = runFrom(dir, exe, outDir, programs, nprograms, pos);
  } else {
    for (i = 0; i < nprograms; ++i)
      snprintf(programs[i].crash, sizeof programs[i].crash, "does not build (build/b%d_%s.log)", batch, variant);
  }
  snprintf(path, sizeof path, "%s/%s", dir, outDir);
  for (i = 0; i < ncases; ++i) {
    const Program* g = NULL;
    for (j = 0; j < nprograms; ++j)
      if (programs[j].id == cases[i].id) g = &programs[j];
    if (!g) fatal("a case names a program outside its batch");
    checkCase(dir, path, &cases[i], g, why, sizeof why);
    if (why[0]) {
      ++failed;
      printf("FAIL %s %s %s: %s\n", cases[i].program, cases[i].size, variant, why);
    } else {
      ++passed;
    }
  }
  printf("cases %d %d\n", passed, failed);
  return failed ? 1 : 0;
}
