void broken(long n, float *y) {
    for (long k = 0; k < n; k++) y[k] = undeclared_thing;
}
