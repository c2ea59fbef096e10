// SPDX-License-Identifier: MIT
/*
 * configfs and sysfs attributes and steps (kattr.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/kattr.h"

int kattr_put(const char *path, const char *s)
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

int kattr_get(const char *path, char *buf, size_t len)
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

int kattr_fail(struct kattr_fail *f, const char *call, const char *obj)
{
	f->call = call;
	f->err = errno;
	snprintf(f->obj, sizeof(f->obj), "%s", obj);
	return -1;
}

int kattr_mkdir(struct kattr_fail *f, const char *path)
{
	return mkdir(path, 0755) ? kattr_fail(f, "configfs_mkdir", path) : 0;
}

int kattr_set(struct kattr_fail *f, const char *dir, const char *name, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return kattr_put(path, val) ? kattr_fail(f, "configfs_write", path) : 0;
}

int kattr_link(struct kattr_fail *f, const char *target, const char *link)
{
	return symlink(target, link) ? kattr_fail(f, "configfs_symlink", link) : 0;
}

int kattr_undo(const char *what, const char *path, int r)
{
	if (r)
		ag_warn("kernel target: %s %s: %s", what, path, strerror(errno));
	return r ? -1 : 0;
}
