// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copyright 2026 The onenode authors
 */

/**
 * DOC: Instances through configfs
 *
 * Userspace creates and removes vcompute instances under
 * /sys/kernel/config/vcompute, as vkms does for its devices::
 *
 *	mkdir /sys/kernel/config/vcompute/t1       # an instance named "t1"
 *	echo 64 > .../t1/vram_mib                  # optional: 1..65536 MiB
 *	echo 4 > .../t1/num_cus                    # optional: 1..64
 *	echo 1 > .../t1/enabled                    # the faux device
 *	                                           # "vcompute.t1" appears
 *	echo 0 > .../t1/enabled                    # hot-unplug it
 *	rmdir /sys/kernel/config/vcompute/t1
 *
 * Writing 0 to ``enabled`` is the hot-unplug path the faux bus lacks
 * otherwise (it has no sysfs unbind): the device goes away under its open
 * files, mappings, queues and exported dma-bufs exactly as a PCI GPU does
 * on surprise removal (vcompute_destroy()), and writing 1 brings a new
 * device up. The size attributes are fixed while the instance is enabled.
 * The module's own instances ("0", ...) are not in configfs; an instance
 * named like one of them fails to enable with -EEXIST.
 *
 * Locking: &vcompute_configfs_device.lock serializes an instance's
 * attributes and its enable/disable.
 */

#include <linux/configfs.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "vcompute_drv.h"

/**
 * struct vcompute_configfs_device - one instance in configfs
 */
struct vcompute_configfs_device {
	/** @group: the configfs directory */
	struct config_group group;
	/** @lock: protects @config and @vdev */
	struct mutex lock;
	/** @config: what the instance is made of */
	struct vcompute_config config;
	/** @vdev: the device while enabled, else NULL */
	struct vcompute_device *vdev;
};

static struct vcompute_configfs_device *to_cdev(struct config_item *item)
{
	return container_of(to_config_group(item), struct vcompute_configfs_device,
			    group);
}

static ssize_t device_enabled_show(struct config_item *item, char *page)
{
	struct vcompute_configfs_device *c = to_cdev(item);
	bool enabled;

	mutex_lock(&c->lock);
	enabled = c->vdev;
	mutex_unlock(&c->lock);
	return sysfs_emit(page, "%d\n", enabled);
}

static ssize_t device_enabled_store(struct config_item *item, const char *page,
				    size_t count)
{
	struct vcompute_configfs_device *c = to_cdev(item);
	struct vcompute_device *vdev;
	bool enable;
	int ret = 0;

	if (kstrtobool(page, &enable))
		return -EINVAL;
	mutex_lock(&c->lock);
	if (enable && !c->vdev) {
		vdev = vcompute_create(&c->config);
		if (IS_ERR(vdev))
			ret = PTR_ERR(vdev);
		else
			c->vdev = vdev;
	} else if (!enable && c->vdev) {
		vcompute_destroy(c->vdev);
		c->vdev = NULL;
	}
	mutex_unlock(&c->lock);
	return ret ?: count;
}

static ssize_t device_vram_mib_show(struct config_item *item, char *page)
{
	struct vcompute_configfs_device *c = to_cdev(item);
	u64 mib;

	mutex_lock(&c->lock);
	mib = c->config.vram_size >> 20;
	mutex_unlock(&c->lock);
	return sysfs_emit(page, "%llu\n", mib);
}

static ssize_t device_vram_mib_store(struct config_item *item, const char *page,
				     size_t count)
{
	struct vcompute_configfs_device *c = to_cdev(item);
	unsigned int mib;
	int ret = 0;

	if (kstrtouint(page, 0, &mib) || !mib || mib > 65536)
		return -EINVAL;
	mutex_lock(&c->lock);
	if (c->vdev)
		ret = -EBUSY;
	else
		c->config.vram_size = (u64)mib << 20;
	mutex_unlock(&c->lock);
	return ret ?: count;
}

static ssize_t device_num_cus_show(struct config_item *item, char *page)
{
	struct vcompute_configfs_device *c = to_cdev(item);
	unsigned int n;

	mutex_lock(&c->lock);
	n = c->config.num_cus;
	mutex_unlock(&c->lock);
	return sysfs_emit(page, "%u\n", n);
}

static ssize_t device_num_cus_store(struct config_item *item, const char *page,
				    size_t count)
{
	struct vcompute_configfs_device *c = to_cdev(item);
	struct vcompute_config cfg;
	unsigned int n;
	int ret = 0;

	if (kstrtouint(page, 0, &n))
		return -EINVAL;
	mutex_lock(&c->lock);
	cfg = c->config;
	cfg.num_cus = n;
	if (c->vdev)
		ret = -EBUSY;
	else if (vcompute_config_check(&cfg))
		ret = -EINVAL;
	else
		c->config = cfg;
	mutex_unlock(&c->lock);
	return ret ?: count;
}

CONFIGFS_ATTR(device_, enabled);
CONFIGFS_ATTR(device_, vram_mib);
CONFIGFS_ATTR(device_, num_cus);

static struct configfs_attribute *device_attrs[] = {
	&device_attr_enabled,
	&device_attr_vram_mib,
	&device_attr_num_cus,
	NULL,
};

static void device_release(struct config_item *item)
{
	struct vcompute_configfs_device *c = to_cdev(item);

	if (c->vdev)
		vcompute_destroy(c->vdev);
	mutex_destroy(&c->lock);
	kfree(c);
}

static struct configfs_item_operations device_item_ops = {
	.release = device_release,
};

static const struct config_item_type device_type = {
	.ct_attrs = device_attrs,
	.ct_item_ops = &device_item_ops,
	.ct_owner = THIS_MODULE,
};

static struct config_group *make_device(struct config_group *group,
					const char *name)
{
	struct vcompute_configfs_device *c;

	if (strlen(name) >= VCOMPUTE_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	c = kzalloc_obj(*c);
	if (!c)
		return ERR_PTR(-ENOMEM);
	strscpy(c->config.name, name);
	c->config.vram_size = SZ_256M;
	c->config.num_cus = 8;
	mutex_init(&c->lock);
	config_group_init_type_name(&c->group, name, &device_type);
	return &c->group;
}

static struct configfs_group_operations subsys_ops = {
	.make_group = make_device,
};

static const struct config_item_type subsys_type = {
	.ct_group_ops = &subsys_ops,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem vcompute_subsys = {
	.su_group = {
		.cg_item = {
			.ci_name = "vcompute",
			.ci_type = &subsys_type,
		},
	},
	.su_mutex = __MUTEX_INITIALIZER(vcompute_subsys.su_mutex),
};

/**
 * vcompute_configfs_register - make /sys/kernel/config/vcompute
 *
 * Returns: 0 or a negative errno.
 */
int vcompute_configfs_register(void)
{
	config_group_init(&vcompute_subsys.su_group);
	return configfs_register_subsystem(&vcompute_subsys);
}

/**
 * vcompute_configfs_unregister - remove it; configfs holds a module
 * reference per instance, so none is left when the module unloads
 */
void vcompute_configfs_unregister(void)
{
	configfs_unregister_subsystem(&vcompute_subsys);
}
