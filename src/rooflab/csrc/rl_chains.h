/* RL_CHAIN_LIST(X) expands X(0) X(1) ... X(RL_CHAINS-1): independent accumulators written out one by one,
 * so that no compiler has to be persuaded by a pragma to unroll a loop over an array (gcc ignores clang's pragma
 * and then keeps the array on the stack). RL_CHAINS may be 1 .. 40. */
#ifndef RL_CHAINS_H
#define RL_CHAINS_H
#ifndef RL_CHAINS
#error "define RL_CHAINS"
#endif
#if RL_CHAINS < 1 || RL_CHAINS > 40
#error "RL_CHAINS must be between 1 and 40"
#endif
#define RL_CL_1(X) X(0)
#define RL_CL_2(X) RL_CL_1(X) X(1)
#define RL_CL_3(X) RL_CL_2(X) X(2)
#define RL_CL_4(X) RL_CL_3(X) X(3)
#define RL_CL_5(X) RL_CL_4(X) X(4)
#define RL_CL_6(X) RL_CL_5(X) X(5)
#define RL_CL_7(X) RL_CL_6(X) X(6)
#define RL_CL_8(X) RL_CL_7(X) X(7)
#define RL_CL_9(X) RL_CL_8(X) X(8)
#define RL_CL_10(X) RL_CL_9(X) X(9)
#define RL_CL_11(X) RL_CL_10(X) X(10)
#define RL_CL_12(X) RL_CL_11(X) X(11)
#define RL_CL_13(X) RL_CL_12(X) X(12)
#define RL_CL_14(X) RL_CL_13(X) X(13)
#define RL_CL_15(X) RL_CL_14(X) X(14)
#define RL_CL_16(X) RL_CL_15(X) X(15)
#define RL_CL_17(X) RL_CL_16(X) X(16)
#define RL_CL_18(X) RL_CL_17(X) X(17)
#define RL_CL_19(X) RL_CL_18(X) X(18)
#define RL_CL_20(X) RL_CL_19(X) X(19)
#define RL_CL_21(X) RL_CL_20(X) X(20)
#define RL_CL_22(X) RL_CL_21(X) X(21)
#define RL_CL_23(X) RL_CL_22(X) X(22)
#define RL_CL_24(X) RL_CL_23(X) X(23)
#define RL_CL_25(X) RL_CL_24(X) X(24)
#define RL_CL_26(X) RL_CL_25(X) X(25)
#define RL_CL_27(X) RL_CL_26(X) X(26)
#define RL_CL_28(X) RL_CL_27(X) X(27)
#define RL_CL_29(X) RL_CL_28(X) X(28)
#define RL_CL_30(X) RL_CL_29(X) X(29)
#define RL_CL_31(X) RL_CL_30(X) X(30)
#define RL_CL_32(X) RL_CL_31(X) X(31)
#define RL_CL_33(X) RL_CL_32(X) X(32)
#define RL_CL_34(X) RL_CL_33(X) X(33)
#define RL_CL_35(X) RL_CL_34(X) X(34)
#define RL_CL_36(X) RL_CL_35(X) X(35)
#define RL_CL_37(X) RL_CL_36(X) X(36)
#define RL_CL_38(X) RL_CL_37(X) X(37)
#define RL_CL_39(X) RL_CL_38(X) X(38)
#define RL_CL_40(X) RL_CL_39(X) X(39)
#define RL_CL__(n, X) RL_CL_##n(X)
#define RL_CL_(n, X) RL_CL__(n, X)
#define RL_CHAIN_LIST(X) RL_CL_(RL_CHAINS, X)
#endif
