# gnu_annot.s: btf_type_tag and btf_decl_tag written as GCC 16 does
# (DW_TAG_GNU_annotation 0x6001 DIEs outside what they annotate, reached
# through DW_AT_GNU_annotation 0x2139 chains), with no GCC 16 at hand:
# the DWARF is written by hand (DWARF 4, x86_64). regen.sh assembles it
# with gcc -c for amd64 only. What pahole 1.32 (e6d98f95) reads of each
# chain is in stream/encode/annot.go; the cases:
#   struct S: its chain (s1, a type tag, s2), a member's chain (m1, m2)
#     and an annotation child (s_child);
#   union U: a chain, not read for unions;
#   P1, P2: the same type tag chain (inner, outer, a decl tag that stops
#     it, then after); P3: an annotation child, which wins over its
#     chain; P4: a chain that starts with a decl tag (no TYPE_TAG);
#   typedef T: an annotation child (td) and a chain (not read);
#   f: a chain (f1, f2), an annotation child (fchild), a parameter's
#     chain (p0) and a parameter's annotation child (p1child);
#   variable g: a chain (not read).
	.text
	.globl	f
	.type	f, @function
f:
	leal	(%rdi,%rsi), %eax
	ret
.Lf_end:
	.size	f, .-f

	.data
	.globl	g
	.type	g, @object
	.size	g, 8
g:
	.quad	0

	.section	.debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1		# compile_unit
	.uleb128 0x11
	.byte	1
	.uleb128 0x25		# producer
	.uleb128 0x8
	.uleb128 0x13		# language
	.uleb128 0xb
	.uleb128 0x3		# name
	.uleb128 0x8
	.uleb128 0x11		# low_pc
	.uleb128 0x1
	.uleb128 0x12		# high_pc
	.uleb128 0x7
	.byte	0, 0
	.uleb128 2		# base_type
	.uleb128 0x24
	.byte	0
	.uleb128 0xb		# byte_size
	.uleb128 0xb
	.uleb128 0x3e		# encoding
	.uleb128 0xb
	.uleb128 0x3		# name
	.uleb128 0x8
	.byte	0, 0
	.uleb128 3		# structure_type with a chain
	.uleb128 0x13
	.byte	1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x2139		# GNU_annotation
	.uleb128 0x13
	.byte	0, 0
	.uleb128 4		# member with a chain
	.uleb128 0xd
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49		# type
	.uleb128 0x13
	.uleb128 0x38		# data_member_location
	.uleb128 0xb
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 5		# member
	.uleb128 0xd
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x38
	.uleb128 0xb
	.byte	0, 0
	.uleb128 6		# union_type with a chain
	.uleb128 0x17
	.byte	1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 7		# pointer_type with a chain
	.uleb128 0xf
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 8		# pointer_type with a chain and children
	.uleb128 0xf
	.byte	1
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 9		# GNU_annotation, chained on
	.uleb128 0x6001
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x1c		# const_value
	.uleb128 0x8
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 10		# GNU_annotation, last of a chain or a child
	.uleb128 0x6001
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x1c
	.uleb128 0x8
	.byte	0, 0
	.uleb128 11		# typedef with a chain and children
	.uleb128 0x16
	.byte	1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 12		# subprogram with a chain
	.uleb128 0x2e
	.byte	1
	.uleb128 0x3f		# external
	.uleb128 0x19
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x27		# prototyped
	.uleb128 0x19
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x40		# frame_base
	.uleb128 0x18
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 13		# formal_parameter with a chain
	.uleb128 0x5
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2		# location
	.uleb128 0x18
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.uleb128 14		# formal_parameter with children
	.uleb128 0x5
	.byte	1
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x2
	.uleb128 0x18
	.byte	0, 0
	.uleb128 15		# variable with a chain
	.uleb128 0x34
	.byte	0
	.uleb128 0x3
	.uleb128 0x8
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x2
	.uleb128 0x18
	.uleb128 0x2139
	.uleb128 0x13
	.byte	0, 0
	.byte	0

	.section	.debug_info,"",@progbits
.Lcu:
	.long	.Lcu_end - .Lcu_ver
.Lcu_ver:
	.value	4
	.long	.Labbrev
	.byte	8
	.uleb128 1
	.string	"GNU C17 16.2.0 (hand-written)"
	.byte	0x1d		# DW_LANG_C11
	.string	"gnu_annot.c"
	.quad	f
	.quad	.Lf_end - f
.Lint:
	.uleb128 2
	.byte	4, 5
	.string	"int"
.LS:
	.uleb128 3
	.string	"S"
	.byte	16
	.long	.LA_s1 - .Lcu
	.uleb128 4
	.string	"a"
	.long	.Lint - .Lcu
	.byte	0
	.long	.LA_m1 - .Lcu
	.uleb128 5
	.string	"p"
	.long	.LP1 - .Lcu
	.byte	8
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"s_child"
	.byte	0
.LU:
	.uleb128 6
	.string	"U"
	.byte	4
	.long	.LA_u - .Lcu
	.uleb128 5
	.string	"u"
	.long	.Lint - .Lcu
	.byte	0
	.byte	0
.LP1:
	.uleb128 7
	.byte	8
	.long	.Lint - .Lcu
	.long	.LT_inner - .Lcu
.LP2:
	.uleb128 7
	.byte	8
	.long	.Lint - .Lcu
	.long	.LT_inner - .Lcu
.LP3:
	.uleb128 8
	.byte	8
	.long	.Lint - .Lcu
	.long	.LT_inner - .Lcu
	.uleb128 10
	.string	"btf_type_tag"
	.string	"child"
	.byte	0
.LP4:
	.uleb128 7
	.byte	8
	.long	.LS - .Lcu
	.long	.LA_m1 - .Lcu
.LT:
	.uleb128 11
	.string	"T"
	.long	.LP1 - .Lcu
	.long	.LA_td_chain - .Lcu
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"td"
	.byte	0
	.uleb128 12
	.string	"f"
	.long	.Lint - .Lcu
	.quad	f
	.quad	.Lf_end - f
	.uleb128 1
	.byte	0x9c		# DW_OP_call_frame_cfa
	.long	.LA_f1 - .Lcu
	.uleb128 13
	.string	"x"
	.long	.Lint - .Lcu
	.uleb128 1
	.byte	0x55		# DW_OP_reg5 (rdi)
	.long	.LA_p0 - .Lcu
	.uleb128 14
	.string	"y"
	.long	.LT - .Lcu
	.uleb128 1
	.byte	0x54		# DW_OP_reg4 (rsi)
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"p1child"
	.byte	0
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"fchild"
	.uleb128 10
	.string	"btf_type_tag"
	.string	"f_type_tag"
	.byte	0
	.uleb128 15
	.string	"g"
	.long	.LPP - .Lcu
	.uleb128 9
	.byte	0x3		# DW_OP_addr
	.quad	g
	.long	.LA_g - .Lcu
.LPP:
	.uleb128 7		# pointer_type with a chain: to P2; then one to P3
	.byte	8
	.long	.LP2 - .Lcu
	.long	.LT_inner - .Lcu
	.uleb128 7
	.byte	8
	.long	.LP3 - .Lcu
	.long	.LT_outer - .Lcu
.LA_s1:
	.uleb128 9
	.string	"btf_decl_tag"
	.string	"s1"
	.long	.LA_s_tt - .Lcu
.LA_s_tt:
	.uleb128 9
	.string	"btf_type_tag"
	.string	"s_tt"
	.long	.LA_s2 - .Lcu
.LA_s2:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"s2"
.LA_m1:
	.uleb128 9
	.string	"btf_decl_tag"
	.string	"m1"
	.long	.LA_m2 - .Lcu
.LA_m2:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"m2"
.LA_u:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"u"
.LT_inner:
	.uleb128 9
	.string	"btf_type_tag"
	.string	"inner"
	.long	.LT_outer - .Lcu
.LT_outer:
	.uleb128 9
	.string	"btf_type_tag"
	.string	"outer"
	.long	.LA_stop - .Lcu
.LA_stop:
	.uleb128 9
	.string	"btf_decl_tag"
	.string	"stop"
	.long	.LT_after - .Lcu
.LT_after:
	.uleb128 10
	.string	"btf_type_tag"
	.string	"after"
.LA_td_chain:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"td_chain"
.LA_f1:
	.uleb128 9
	.string	"btf_decl_tag"
	.string	"f1"
	.long	.LA_f2 - .Lcu
.LA_f2:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"f2"
.LA_p0:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"p0"
.LA_g:
	.uleb128 10
	.string	"btf_decl_tag"
	.string	"g_chain"
	.byte	0
.Lcu_end:
