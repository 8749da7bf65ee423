/* Multi-dimensional arrays: pahole 1.32 (4dce86c3) nests them, one ARRAY
 * per dimension, innermost first. No "int" before the first arrays, so the
 * index type's id comes after nested ARRAYs of the unit. */
typedef unsigned short u16;
typedef u16 row3[3];
typedef char name16[16];

struct early {
	char grid[5][2][4];		/* ARRAY(5) of ARRAY(2) of ARRAY(4) */
	long pair[2][3];
	unsigned char empty[2][0];	/* zero inner dimension */
	short zero[0][3];		/* zero outer dimension */
	row3 rows[4];			/* typedef'd array as the element */
	u16 typed[2][2];		/* typedef'd element */
	name16 names[3];
	char plain[10];			/* one dimension: one ARRAY */
};

struct quals {
	const int c2[2][3];
	volatile long v2[3][2];
	const volatile int cv[2][2][2];
	int same[6];			/* 6 elements, as c2 flattened was */
};

struct flex {
	int n;
	int tail[][4];			/* flexible outer dimension */
};

struct deep { char d[2][2][2][2][2][2]; };

typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));
struct vecs { v4sf f[2]; v4si i[2][2]; };

const char table[3][8] = { "one", "two", "three" };
int cube[2][0][3];
struct early e;
struct quals q;
struct deep dp;
struct vecs vv;
struct flex *fp;

int sum(int (*m)[2][3], int n)
{
	static long local[4][5];
	local[n & 3][n % 5] += m[0][1][2];
	return local[1][2] + table[n & 1][n & 7] + e.grid[1][1][1];
}
