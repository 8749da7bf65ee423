// libbpf_dedup: the differential test's libbpf side (dedup/libbpf_test.go
// compiles it with cc -lbpf). It reads requests from stdin and answers on
// stdout, so one process deduplicates thousands of small inputs:
//
//	request: u32 base_len, base_len bytes of raw base BTF (0: none),
//	         u32 len, len bytes of raw BTF (split over the base if any)
//	answer:  i32 status (0, or btf__dedup's / btf__new's negative error),
//	         u32 len, len bytes of the deduplicated raw BTF (split part)
//
// All integers are little-endian (the test runs on the host it builds on).
#define _GNU_SOURCE
#include <bpf/btf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

// new_split parses split BTF over base. libbpf 1.1 declares btf__new_split
// but does not export it: go through btf__parse_raw_split on a memfd.
static struct btf *new_split(const void *raw, uint32_t len, struct btf *base)
{
	char path[64];
	int fd = memfd_create("split", 0);
	if (fd < 0)
		return NULL;
	if (write(fd, raw, len) != (ssize_t)len) {
		close(fd);
		errno = EIO;
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct btf *btf = btf__parse_raw_split(path, base);
	int saved = errno;
	close(fd);
	errno = saved;
	return btf;
}

static int read_blob(void **buf, uint32_t *len)
{
	if (fread(len, 4, 1, stdin) != 1)
		return -1;
	*buf = NULL;
	if (*len == 0)
		return 0;
	*buf = malloc(*len);
	if (!*buf || fread(*buf, 1, *len, stdin) != *len)
		return -1;
	return 0;
}

static void answer(int32_t status, const void *data, uint32_t len)
{
	fwrite(&status, 4, 1, stdout);
	fwrite(&len, 4, 1, stdout);
	if (len)
		fwrite(data, 1, len, stdout);
	fflush(stdout);
}

int main(void)
{
	for (;;) {
		void *base_raw, *raw;
		uint32_t base_len, len;
		if (read_blob(&base_raw, &base_len))
			return 0;
		if (read_blob(&raw, &len))
			return 1;
		struct btf *base = NULL, *btf;
		if (base_len) {
			base = btf__new(base_raw, base_len);
			if (!base) {
				answer(-errno, NULL, 0);
				goto next;
			}
		}
		btf = base ? new_split(raw, len, base) : btf__new(raw, len);
		if (!btf) {
			answer(-errno, NULL, 0);
			goto next;
		}
		int err = btf__dedup(btf, NULL);
		if (err) {
			answer(err, NULL, 0);
		} else {
			uint32_t n;
			const void *out = btf__raw_data(btf, &n);
			answer(0, out, n);
		}
		btf__free(btf);
next:
		btf__free(base);
		free(base_raw);
		free(raw);
	}
}
