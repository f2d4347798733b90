/*
 * c_client: Foothold's C API from plain C.
 *
 *   c_client TOKEN_FILE SECONDS
 *
 * Loads a connect token (as `foothold-token issue --out` writes it), connects to the server it names,
 * walks forward (toward -Z) for SECONDS at 60 frames per second, and prints one last line:
 *
 *   connected=1 ticks=N distance_m=D corrections=C
 *
 * N is the ticks predicted, D the horizontal distance walked in metres, C the predictions the server
 * corrected. The line before it gives the API's cost per frame while walking (set_input, update,
 * local_character, get_stats), as this thread's CPU time (so time the scheduler gave to others does
 * not count), median and 99th percentile in microseconds:
 *
 *   api_cpu_us_per_frame_p50=X api_cpu_us_per_frame_p99=Y frames=F
 *
 * Exit 0 when it connected, 1 when it never did (the line then says connected=0), 2 for bad usage.
 * Built against an installed SDK:
 *
 *   cc main.c $(pkg-config --cflags --libs foothold-client) -lm     (libm: this program's own sqrt)
 *
 * On Windows, from the zip (foothold-client-VERSION-windows-x86_64.zip):
 *
 *   cl main.c /I include lib\foothold-client.lib                       (MSVC)
 *   x86_64-w64-mingw32-gcc main.c -Iinclude -Llib -lfoothold-client    (MinGW)
 */
#define _POSIX_C_SOURCE 200809L

#include <foothold/client.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(_WIN32)
/* Windows (MSVC or MinGW): the performance counter, the thread's CPU times, Sleep. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

static double now_seconds(void) {
  LARGE_INTEGER count, frequency;
  QueryPerformanceCounter(&count);
  QueryPerformanceFrequency(&frequency);
  return (double)count.QuadPart / (double)frequency.QuadPart;
}

static double thread_cpu_seconds(void) {
  FILETIME created, exited, kernel, user;
  GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user);
  const ULONGLONG k = ((ULONGLONG)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
  const ULONGLONG u = ((ULONGLONG)user.dwHighDateTime << 32) | user.dwLowDateTime;
  return (double)(k + u) * 1e-7; /* 100 ns units */
}

static void sleep_seconds(double wait) { Sleep((DWORD)(wait * 1000.0)); }
#else
static double clock_seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now_seconds(void) { return clock_seconds(CLOCK_MONOTONIC); }

static double thread_cpu_seconds(void) { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

static void sleep_seconds(double wait) {
  struct timespec t;
  t.tv_sec = (time_t)wait;
  t.tv_nsec = (long)((wait - (double)t.tv_sec) * 1e9);
  nanosleep(&t, NULL);
}
#endif

/* The API's CPU time per frame while walking, microseconds (the first 65536 frames: 18 minutes). */
enum { kMaxSamples = 65536 };
static double samples[kMaxSamples];
static int sample_count = 0;

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double quantile(double p) {
  if (sample_count == 0) return 0;
  int k = (int)(p * sample_count);
  if (k >= sample_count) k = sample_count - 1;
  return samples[k];
}

static void sleep_until(double when) {
  const double wait = when - now_seconds();
  if (wait > 0) sleep_seconds(wait);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: c_client TOKEN_FILE SECONDS\n");
    return 2;
  }
  char* end = NULL;
  const double seconds = strtod(argv[2], &end);
  if (end == argv[2] || *end != '\0' || !(seconds > 0 && seconds <= 3600)) {
    fprintf(stderr, "c_client: SECONDS must be a number in (0, 3600], not '%s'\n", argv[2]);
    return 2;
  }

  foothold_client_config config;
  foothold_client_config_init(&config);
  foothold_client* client = NULL;
  char error[512];
  if (foothold_client_create(&config, &client, error, sizeof error) != FOOTHOLD_CLIENT_OK) {
    fprintf(stderr, "c_client: %s\n", error);
    return 1;
  }
  if (foothold_client_connect_token_file(client, argv[1]) != FOOTHOLD_CLIENT_OK) {
    fprintf(stderr, "c_client: %s\n", foothold_client_last_error(client));
    foothold_client_destroy(client);
    return 2;
  }

  /* Connect (at most 10 s), then walk for SECONDS: one update per 1/60 s frame. */
  const double frame = 1.0 / 60.0;
  const double start = now_seconds();
  double next = start, walk_until = 0;
  int connected = 0, failed = 0;
  double first[3] = {0, 0, 0};
  foothold_client_character me;
  for (;;) {
    const double now = now_seconds();
    const foothold_client_status status = foothold_client_get_status(client);
    if (!connected && status == FOOTHOLD_CLIENT_CONNECTED) {
      connected = 1;
      walk_until = now + seconds;
      if (foothold_client_local_character(client, &me) == FOOTHOLD_CLIENT_OK) {
        first[0] = me.position[0];
        first[2] = me.position[2];
      }
    }
    if (status >= FOOTHOLD_CLIENT_REJECTED) {
      fprintf(stderr, "c_client: %s\n", foothold_client_last_error(client));
      failed = 1;
      break;
    }
    if (!connected && now - start > 10) {
      fprintf(stderr, "c_client: not connected after 10 s\n");
      break;
    }
    if (connected && now >= walk_until) break;
    const double before = thread_cpu_seconds();
    foothold_client_set_input(client, 0.0, connected ? -1.0 : 0.0, 0);
    if (foothold_client_update(client, now) != FOOTHOLD_CLIENT_OK) {
      fprintf(stderr, "c_client: %s\n", foothold_client_last_error(client));
      failed = 1;
      break;
    }
    if (connected) {
      foothold_client_stats frame_stats;
      foothold_client_local_character(client, &me);
      foothold_client_get_stats(client, &frame_stats);
      if (sample_count < kMaxSamples) samples[sample_count++] = (thread_cpu_seconds() - before) * 1e6;
    }
    next += frame;
    sleep_until(next);
  }

  double distance = 0;
  foothold_client_stats stats;
  foothold_client_get_stats(client, &stats);
  if (connected && foothold_client_local_character(client, &me) == FOOTHOLD_CLIENT_OK) {
    const double dx = me.position[0] - first[0], dz = me.position[2] - first[2];
    distance = sqrt(dx * dx + dz * dz);
  }
  foothold_client_destroy(client);
  qsort(samples, (size_t)sample_count, sizeof samples[0], by_value);
  printf("api_cpu_us_per_frame_p50=%.1f api_cpu_us_per_frame_p99=%.1f frames=%d\n", quantile(0.5), quantile(0.99), sample_count);
  printf("connected=%d ticks=%llu distance_m=%.2f corrections=%llu\n", connected, (unsigned long long)stats.ticks,
         distance, (unsigned long long)stats.corrections);
  return connected && !failed ? 0 : 1;
}
