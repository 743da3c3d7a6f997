//! Partial call contexts (`5:0<3:2<2:2<1:3`). Being built.
