double broken(long reps) {
    return undeclared_variable * reps;
}
