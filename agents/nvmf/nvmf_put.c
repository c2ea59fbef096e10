// SPDX-License-Identifier: MIT
/*
 * sysfs and configfs attributes, written and read whole (see nvmf.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "agents/nvmf/nvmf.h"

int nvmf_put(const char *path, const char *s)
{
	size_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC), e;
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, s, len);
	e = w < 0 ? errno : (size_t)w != len ? EIO : 0;
	if (close(fd) && !e)
		e = errno;
	errno = e;
	return e ? -1 : 0;
}

int nvmf_get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, len - 1);
	e = r < 0 ? errno : 0;
	close(fd);
	if (e) {
		errno = e;
		return -1;
	}
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}
