/* SPDX-License-Identifier: MIT */
/*
 * Copyright 2026 The onenode authors
 *
 * ioctl_wrappers.h - the ioctl entry point of the IGT-API shim.
 */
#ifndef ONENODE_IGT_IOCTL_WRAPPERS_H
#define ONENODE_IGT_IOCTL_WRAPPERS_H

/**
 * igt_ioctl - the ioctl function tests call, per thread; libdrm's
 * drmIoctl() (which restarts on EINTR and EAGAIN) unless a test replaces it.
 * Returns 0 or a positive value on success, -1 with errno set on failure.
 */
extern __thread int (*igt_ioctl)(int fd, unsigned long request, void *arg);

#endif /* ONENODE_IGT_IOCTL_WRAPPERS_H */
