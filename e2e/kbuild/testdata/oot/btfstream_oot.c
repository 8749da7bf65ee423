// SPDX-License-Identifier: GPL-2.0
/*
 * btfstream_oot: the out-of-tree module of scripts/kbuild-check.sh.
 *
 * kbuild encodes an M= module with --btf_features=distilled_base, so its
 * BTF is split BTF over a distilled base (.BTF.base) that the kernel
 * relocates onto its own vmlinux BTF when the module loads. The types
 * below reach vmlinux types of every sort the distillation treats
 * differently: named structs embedded and through pointers (kept in the
 * base without members; embedded ones must match in size), typedefs of
 * anonymous structs (atomic_t, copied into the split whole), base enums,
 * function prototypes and ints.
 */
#include <linux/atomic.h>
#include <linux/init.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

enum oot_state { OOT_IDLE, OOT_BUSY = 3, OOT_DONE };

struct oot_item {
	struct list_head node;		/* embedded named base struct */
	atomic_t refs;			/* typedef of an anonymous base struct */
	enum oot_state state;
	union {
		u32 word;
		u8 bytes[4];
	} u;				/* anonymous union of base typedefs */
	unsigned int flags : 3, prio : 5;
	void (*done)(struct oot_item *it, int err);
};

struct oot_dev {
	spinlock_t lock;		/* typedef of a base struct of anonymous unions */
	struct list_head items;
	struct work_struct work;	/* embedded, holds a function pointer */
	struct oot_item *last;
	const char *name;
	gfp_t gfp;			/* typedef with a type attribute */
	unsigned long long total;
};

static struct oot_dev oot_dev;

int oot_add(struct oot_dev *d, u32 word);

static void oot_done(struct oot_item *it, int err)
{
	it->state = err ? OOT_IDLE : OOT_DONE;
}

noinline int oot_add(struct oot_dev *d, u32 word)
{
	struct oot_item *it = kzalloc(sizeof(*it), d->gfp);

	if (!it)
		return -ENOMEM;
	atomic_set(&it->refs, 1);
	it->u.word = word;
	it->state = OOT_BUSY;
	it->done = oot_done;
	spin_lock(&d->lock);
	list_add_tail(&it->node, &d->items);
	d->last = it;
	d->total += word;
	spin_unlock(&d->lock);
	schedule_work(&d->work);
	return 0;
}

static void oot_work(struct work_struct *w)
{
	struct oot_dev *d = container_of(w, struct oot_dev, work);
	struct oot_item *it;

	spin_lock(&d->lock);
	list_for_each_entry(it, &d->items, node)
		if (it->state == OOT_BUSY)
			it->done(it, 0);
	spin_unlock(&d->lock);
}

static int __init oot_init(void)
{
	spin_lock_init(&oot_dev.lock);
	INIT_LIST_HEAD(&oot_dev.items);
	INIT_WORK(&oot_dev.work, oot_work);
	oot_dev.name = KBUILD_MODNAME;
	oot_dev.gfp = GFP_KERNEL;
	return oot_add(&oot_dev, 42);
}

static void __exit oot_exit(void)
{
	struct oot_item *it, *next;

	cancel_work_sync(&oot_dev.work);
	list_for_each_entry_safe(it, next, &oot_dev.items, node)
		kfree(it);
}

module_init(oot_init);
module_exit(oot_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("btfstream kbuild check: an out-of-tree module with a distilled base");
