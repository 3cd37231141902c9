import { cuda, f32, i32 } from "cudascript";

// Modestly nested code. NVRTC's recursive front end needs stack per level of nesting, and each of these
// kernels once overflowed the 128 KiB stack that koffi gives asynchronous native calls, crashing the
// process that compiled it (the CLI, the language server, `cudascript run`).

/** A degree-19 polynomial in Horner form, every step parenthesised (18 nested parentheses). */
export const horner = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const v = x[i];
    out[i] = ((((((((((((((((((0.5 * v + -0.25) * v + 0.125) * v + 1) * v + -1) * v + 0.75) * v + 0.0625) * v + -0.5) * v + 2) * v + 0.375) * v + -0.125) * v + 0.25) * v + 1.5) * v + -0.75) * v + 0.03125) * v + 0.625) * v + -2) * v + 0.875) * v + -0.0625) * v + 3;
  }
});

/** 100 nested ifs: counts the thresholds 0.01, 0.02, … that x[i] passes before the first it does not. */
export const nestedIfs = cuda.jit((x: Float32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const v = x[i];
    let n: i32 = 0;
    if (v > 0.01) {
      n += 1;
      if (v > 0.02) {
        n += 1;
        if (v > 0.03) {
          n += 1;
          if (v > 0.04) {
            n += 1;
            if (v > 0.05) {
              n += 1;
              if (v > 0.06) {
                n += 1;
                if (v > 0.07) {
                  n += 1;
                  if (v > 0.08) {
                    n += 1;
                    if (v > 0.09) {
                      n += 1;
                      if (v > 0.1) {
                        n += 1;
                        if (v > 0.11) {
                          n += 1;
                          if (v > 0.12) {
                            n += 1;
                            if (v > 0.13) {
                              n += 1;
                              if (v > 0.14) {
                                n += 1;
                                if (v > 0.15) {
                                  n += 1;
                                  if (v > 0.16) {
                                    n += 1;
                                    if (v > 0.17) {
                                      n += 1;
                                      if (v > 0.18) {
                                        n += 1;
                                        if (v > 0.19) {
                                          n += 1;
                                          if (v > 0.2) {
                                            n += 1;
                                            if (v > 0.21) {
                                              n += 1;
                                              if (v > 0.22) {
                                                n += 1;
                                                if (v > 0.23) {
                                                  n += 1;
                                                  if (v > 0.24) {
                                                    n += 1;
                                                    if (v > 0.25) {
                                                      n += 1;
                                                      if (v > 0.26) {
                                                        n += 1;
                                                        if (v > 0.27) {
                                                          n += 1;
                                                          if (v > 0.28) {
                                                            n += 1;
                                                            if (v > 0.29) {
                                                              n += 1;
                                                              if (v > 0.3) {
                                                                n += 1;
                                                                if (v > 0.31) {
                                                                  n += 1;
                                                                  if (v > 0.32) {
                                                                    n += 1;
                                                                    if (v > 0.33) {
                                                                      n += 1;
                                                                      if (v > 0.34) {
                                                                        n += 1;
                                                                        if (v > 0.35) {
                                                                          n += 1;
                                                                          if (v > 0.36) {
                                                                            n += 1;
                                                                            if (v > 0.37) {
                                                                              n += 1;
                                                                              if (v > 0.38) {
                                                                                n += 1;
                                                                                if (v > 0.39) {
                                                                                  n += 1;
                                                                                  if (v > 0.4) {
                                                                                    n += 1;
                                                                                    if (v > 0.41) {
                                                                                      n += 1;
                                                                                      if (v > 0.42) {
                                                                                        n += 1;
                                                                                        if (v > 0.43) {
                                                                                          n += 1;
                                                                                          if (v > 0.44) {
                                                                                            n += 1;
                                                                                            if (v > 0.45) {
                                                                                              n += 1;
                                                                                              if (v > 0.46) {
                                                                                                n += 1;
                                                                                                if (v > 0.47) {
                                                                                                  n += 1;
                                                                                                  if (v > 0.48) {
                                                                                                    n += 1;
                                                                                                    if (v > 0.49) {
                                                                                                      n += 1;
                                                                                                      if (v > 0.5) {
                                                                                                        n += 1;
                                                                                                        if (v > 0.51) {
                                                                                                          n += 1;
                                                                                                          if (v > 0.52) {
                                                                                                            n += 1;
                                                                                                            if (v > 0.53) {
                                                                                                              n += 1;
                                                                                                              if (v > 0.54) {
                                                                                                                n += 1;
                                                                                                                if (v > 0.55) {
                                                                                                                  n += 1;
                                                                                                                  if (v > 0.56) {
                                                                                                                    n += 1;
                                                                                                                    if (v > 0.57) {
                                                                                                                      n += 1;
                                                                                                                      if (v > 0.58) {
                                                                                                                        n += 1;
                                                                                                                        if (v > 0.59) {
                                                                                                                          n += 1;
                                                                                                                          if (v > 0.6) {
                                                                                                                            n += 1;
                                                                                                                            if (v > 0.61) {
                                                                                                                              n += 1;
                                                                                                                              if (v > 0.62) {
                                                                                                                                n += 1;
                                                                                                                                if (v > 0.63) {
                                                                                                                                  n += 1;
                                                                                                                                  if (v > 0.64) {
                                                                                                                                    n += 1;
                                                                                                                                    if (v > 0.65) {
                                                                                                                                      n += 1;
                                                                                                                                      if (v > 0.66) {
                                                                                                                                        n += 1;
                                                                                                                                        if (v > 0.67) {
                                                                                                                                          n += 1;
                                                                                                                                          if (v > 0.68) {
                                                                                                                                            n += 1;
                                                                                                                                            if (v > 0.69) {
                                                                                                                                              n += 1;
                                                                                                                                              if (v > 0.7) {
                                                                                                                                                n += 1;
                                                                                                                                                if (v > 0.71) {
                                                                                                                                                  n += 1;
                                                                                                                                                  if (v > 0.72) {
                                                                                                                                                    n += 1;
                                                                                                                                                    if (v > 0.73) {
                                                                                                                                                      n += 1;
                                                                                                                                                      if (v > 0.74) {
                                                                                                                                                        n += 1;
                                                                                                                                                        if (v > 0.75) {
                                                                                                                                                          n += 1;
                                                                                                                                                          if (v > 0.76) {
                                                                                                                                                            n += 1;
                                                                                                                                                            if (v > 0.77) {
                                                                                                                                                              n += 1;
                                                                                                                                                              if (v > 0.78) {
                                                                                                                                                                n += 1;
                                                                                                                                                                if (v > 0.79) {
                                                                                                                                                                  n += 1;
                                                                                                                                                                  if (v > 0.8) {
                                                                                                                                                                    n += 1;
                                                                                                                                                                    if (v > 0.81) {
                                                                                                                                                                      n += 1;
                                                                                                                                                                      if (v > 0.82) {
                                                                                                                                                                        n += 1;
                                                                                                                                                                        if (v > 0.83) {
                                                                                                                                                                          n += 1;
                                                                                                                                                                          if (v > 0.84) {
                                                                                                                                                                            n += 1;
                                                                                                                                                                            if (v > 0.85) {
                                                                                                                                                                              n += 1;
                                                                                                                                                                              if (v > 0.86) {
                                                                                                                                                                                n += 1;
                                                                                                                                                                                if (v > 0.87) {
                                                                                                                                                                                  n += 1;
                                                                                                                                                                                  if (v > 0.88) {
                                                                                                                                                                                    n += 1;
                                                                                                                                                                                    if (v > 0.89) {
                                                                                                                                                                                      n += 1;
                                                                                                                                                                                      if (v > 0.9) {
                                                                                                                                                                                        n += 1;
                                                                                                                                                                                        if (v > 0.91) {
                                                                                                                                                                                          n += 1;
                                                                                                                                                                                          if (v > 0.92) {
                                                                                                                                                                                            n += 1;
                                                                                                                                                                                            if (v > 0.93) {
                                                                                                                                                                                              n += 1;
                                                                                                                                                                                              if (v > 0.94) {
                                                                                                                                                                                                n += 1;
                                                                                                                                                                                                if (v > 0.95) {
                                                                                                                                                                                                  n += 1;
                                                                                                                                                                                                  if (v > 0.96) {
                                                                                                                                                                                                    n += 1;
                                                                                                                                                                                                    if (v > 0.97) {
                                                                                                                                                                                                      n += 1;
                                                                                                                                                                                                      if (v > 0.98) {
                                                                                                                                                                                                        n += 1;
                                                                                                                                                                                                        if (v > 0.99) {
                                                                                                                                                                                                          n += 1;
                                                                                                                                                                                                          if (v > 1) {
                                                                                                                                                                                                            n += 1;
                                                                                                                                                                                                          }
                                                                                                                                                                                                        }
                                                                                                                                                                                                      }
                                                                                                                                                                                                    }
                                                                                                                                                                                                  }
                                                                                                                                                                                                }
                                                                                                                                                                                              }
                                                                                                                                                                                            }
                                                                                                                                                                                          }
                                                                                                                                                                                        }
                                                                                                                                                                                      }
                                                                                                                                                                                    }
                                                                                                                                                                                  }
                                                                                                                                                                                }
                                                                                                                                                                              }
                                                                                                                                                                            }
                                                                                                                                                                          }
                                                                                                                                                                        }
                                                                                                                                                                      }
                                                                                                                                                                    }
                                                                                                                                                                  }
                                                                                                                                                                }
                                                                                                                                                              }
                                                                                                                                                            }
                                                                                                                                                          }
                                                                                                                                                        }
                                                                                                                                                      }
                                                                                                                                                    }
                                                                                                                                                  }
                                                                                                                                                }
                                                                                                                                              }
                                                                                                                                            }
                                                                                                                                          }
                                                                                                                                        }
                                                                                                                                      }
                                                                                                                                    }
                                                                                                                                  }
                                                                                                                                }
                                                                                                                              }
                                                                                                                            }
                                                                                                                          }
                                                                                                                        }
                                                                                                                      }
                                                                                                                    }
                                                                                                                  }
                                                                                                                }
                                                                                                              }
                                                                                                            }
                                                                                                          }
                                                                                                        }
                                                                                                      }
                                                                                                    }
                                                                                                  }
                                                                                                }
                                                                                              }
                                                                                            }
                                                                                          }
                                                                                        }
                                                                                      }
                                                                                    }
                                                                                  }
                                                                                }
                                                                              }
                                                                            }
                                                                          }
                                                                        }
                                                                      }
                                                                    }
                                                                  }
                                                                }
                                                              }
                                                            }
                                                          }
                                                        }
                                                      }
                                                    }
                                                  }
                                                }
                                              }
                                            }
                                          }
                                        }
                                      }
                                    }
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    out[i] = n;
  }
});

/** A 500-term sum: a left-nested chain of 499 additions. */
export const longSum = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const v = x[i];
    out[i] =
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v +
      v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v + v;
  }
});
