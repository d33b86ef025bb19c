"""Number formatting for reports: sizes and rates as a reader reads them, never in exponent form."""

from rooflab.units import binary_bytes, seconds, si


def test_a_figure_just_under_the_next_unit_is_written_out_not_in_exponent_form():
    # a kernel that printed 1023.7 KiB was reported as printing "1e+03 KiB"
    assert binary_bytes(1023.7 * 1024) == "1024 KiB"
    assert binary_bytes(999.6 * 1024) == "1000 KiB"
    assert si(999.7e9, "FLOP/s") == "1000 GFLOP/s"
    assert si(999.99) == "1000"
    # the usual cases keep three significant digits
    assert binary_bytes(32768) == "32 KiB" and binary_bytes(1500) == "1.46 KiB" and binary_bytes(512) == "512 B"
    assert si(1.234e11, "B/s") == "123 GB/s" and si(0.5) == "0.5" and si(None) == "—"
    for v in (999.5, 999.9, 1000.4, 1023.9, 123456.0):
        for text in (binary_bytes(v * 1024), si(v * 1e6, "B/s")):
            assert "e+" not in text, text
    assert seconds(2.5) == "2.5 s" and seconds(999.7) == "1000 s" and seconds(0.9997) == "1000 ms"
