/*
 * abi_call.S - the Win64 ABI harness of tests/win/test_win64_abi.c (x86-64 Windows, GNU as).
 *
 *   uint64_t sk_abi_call(const void *fn, const uint64_t args[6], sk_abi_regs *after);
 *
 * Calls fn(args[0], ..., args[5]) as the Microsoft x64 convention passes them (rcx, rdx, r8, r9,
 * then the stack above 32 bytes of shadow space) with every register the convention makes
 * nonvolatile set to a known pattern: rbx, rbp, rdi, rsi, r12-r15 (sk_abi_gpr_pattern) and
 * xmm6-xmm15 (sk_abi_xmm_pattern). After the call it stores what those registers hold, and MXCSR,
 * into *after, restores its own caller's registers and returns fn's rax. The C side compares.
 *
 * sk_abi_clobber: a function that breaks the convention on purpose (changes rbx, r13, xmm7 and
 * xmm15 and returns), to show that the harness sees it.
 */
	.text
	.globl	sk_abi_call
	.def	sk_abi_call; .scl 2; .type 32; .endef
sk_abi_call:
	pushq	%rbp
	pushq	%rbx
	pushq	%rdi
	pushq	%rsi
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	/* 8 pushes + return address = 72 bytes; 232 more keep rsp 16-byte aligned at the call.
	 * Frame: 0-31 shadow space, 32/40 stack arguments 5 and 6, 48 `after`, 64-223 own xmm6-15,
	 * 224 own MXCSR. */
	subq	$232, %rsp
	movq	%r8, 48(%rsp)
	movdqu	%xmm6, 64(%rsp)
	movdqu	%xmm7, 80(%rsp)
	movdqu	%xmm8, 96(%rsp)
	movdqu	%xmm9, 112(%rsp)
	movdqu	%xmm10, 128(%rsp)
	movdqu	%xmm11, 144(%rsp)
	movdqu	%xmm12, 160(%rsp)
	movdqu	%xmm13, 176(%rsp)
	movdqu	%xmm14, 192(%rsp)
	movdqu	%xmm15, 208(%rsp)
	stmxcsr	224(%rsp)
	movq	%rcx, %r11
	movq	%rdx, %r10
	movq	32(%r10), %rax
	movq	%rax, 32(%rsp)
	movq	40(%r10), %rax
	movq	%rax, 40(%rsp)
	leaq	sk_abi_gpr_pattern(%rip), %rax
	movq	0(%rax), %rbx
	movq	8(%rax), %rbp
	movq	16(%rax), %rdi
	movq	24(%rax), %rsi
	movq	32(%rax), %r12
	movq	40(%rax), %r13
	movq	48(%rax), %r14
	movq	56(%rax), %r15
	leaq	sk_abi_xmm_pattern(%rip), %rax
	movdqu	0(%rax), %xmm6
	movdqu	16(%rax), %xmm7
	movdqu	32(%rax), %xmm8
	movdqu	48(%rax), %xmm9
	movdqu	64(%rax), %xmm10
	movdqu	80(%rax), %xmm11
	movdqu	96(%rax), %xmm12
	movdqu	112(%rax), %xmm13
	movdqu	128(%rax), %xmm14
	movdqu	144(%rax), %xmm15
	movq	0(%r10), %rcx
	movq	8(%r10), %rdx
	movq	16(%r10), %r8
	movq	24(%r10), %r9
	call	*%r11
	movq	48(%rsp), %r10
	movq	%rbx, 0(%r10)
	movq	%rbp, 8(%r10)
	movq	%rdi, 16(%r10)
	movq	%rsi, 24(%r10)
	movq	%r12, 32(%r10)
	movq	%r13, 40(%r10)
	movq	%r14, 48(%r10)
	movq	%r15, 56(%r10)
	movdqu	%xmm6, 64(%r10)
	movdqu	%xmm7, 80(%r10)
	movdqu	%xmm8, 96(%r10)
	movdqu	%xmm9, 112(%r10)
	movdqu	%xmm10, 128(%r10)
	movdqu	%xmm11, 144(%r10)
	movdqu	%xmm12, 160(%r10)
	movdqu	%xmm13, 176(%r10)
	movdqu	%xmm14, 192(%r10)
	movdqu	%xmm15, 208(%r10)
	stmxcsr	224(%r10)
	ldmxcsr	224(%rsp)
	movdqu	64(%rsp), %xmm6
	movdqu	80(%rsp), %xmm7
	movdqu	96(%rsp), %xmm8
	movdqu	112(%rsp), %xmm9
	movdqu	128(%rsp), %xmm10
	movdqu	144(%rsp), %xmm11
	movdqu	160(%rsp), %xmm12
	movdqu	176(%rsp), %xmm13
	movdqu	192(%rsp), %xmm14
	movdqu	208(%rsp), %xmm15
	addq	$232, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rsi
	popq	%rdi
	popq	%rbx
	popq	%rbp
	ret

	.globl	sk_abi_clobber
	.def	sk_abi_clobber; .scl 2; .type 32; .endef
sk_abi_clobber:
	xorq	$1, %rbx
	notq	%r13
	pxor	%xmm7, %xmm7
	pcmpeqd	%xmm15, %xmm15
	xorl	%eax, %eax
	ret
