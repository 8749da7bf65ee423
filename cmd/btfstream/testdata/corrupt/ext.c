/* Split BTF over point.btf: see point.c. */
typedef unsigned long size_t;
struct point;
struct box { struct point *corner[2]; size_t area; char label[8]; };
struct box boxes[2];
int box_area(struct box *b) { return (int)b->area + b->label[0]; }
