// dedup_libbpf: deduplicate raw BTF with libbpf's btf__dedup, for
// comparison with btfstream (bench/dedup.sh compiles it on the fly).
//
//	dedup_libbpf IN OUT
//
// Prints wall time and peak RSS (VmHWM) as key=value, like dedupbench.
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long vmhwm(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
		return 2;
	}
	double start = now();
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *buf = malloc(size);
	if (fread(buf, 1, size, f) != (size_t)size) {
		perror("read");
		return 1;
	}
	fclose(f);
	struct btf *btf = btf__new(buf, size);
	if (!btf) {
		fprintf(stderr, "btf__new: %s\n", strerror(errno));
		return 1;
	}
	free(buf);
	double read = now() - start;
	int err = btf__dedup(btf, NULL);
	if (err) {
		fprintf(stderr, "btf__dedup: %d\n", err);
		return 1;
	}
	double total = now() - start;
	__u32 n;
	const void *raw = btf__raw_data(btf, &n);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(raw, 1, n, f) != n) {
		perror(argv[2]);
		return 1;
	}
	fclose(f);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		     ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("mode=libbpf types_out=%u read_s=%.3f total_s=%.3f cpu_s=%.3f peak_rss_kb=%ld\n",
	       btf__type_cnt(btf) - 1, read, total, cpu, vmhwm());
	return 0;
}
