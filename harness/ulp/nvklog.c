// SPDX-License-Identifier: MIT
/*
 * The kernel's own log lines of a kernel-service point (nvk.h): /dev/kmsg read from
 * where it stood when the point began, warnings and worse of the services
 * the point drives, for the cause of a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/ulp/nvk.h"

/* the words of the kernel's lines that are the point's */
static const char *const nvkl_words[] = { "nvme", "nvmet", "null_blk", "rdma", "rxe",
					  "infiniband", "srp", "scsi", "sd ", "target" };

int nvkl_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int nvkl_read(int fd, char lines[][NVKL_LINE], int max)
{
	char rec[2048];
	int n = 0;

	/* bounded: a record per read, the ring's size at most */
	for (int k = 0; fd >= 0 && k < 100000 && n < max; k++) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		unsigned pri;
		char *msg;

		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten under us: the next one */
		if (r <= 0)
			break;
		rec[r] = '\0';
		msg = strchr(rec, ';');
		if (!msg || sscanf(rec, "%u", &pri) != 1 || (pri & 7) > 4)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = '\0';
		for (size_t w = 0; w < sizeof(nvkl_words) / sizeof(nvkl_words[0]); w++)
			if (strstr(msg, nvkl_words[w])) {
				snprintf(lines[n++], NVKL_LINE, "%s", msg);
				break;
			}
	}
	return n;
}
