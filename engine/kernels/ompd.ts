/**
 * The omni-domain power-duration model (OmPD; Puchowicz, Baker & Clarke 2020, J Sports Sci 38(4)) and its
 * fit (ANALYTICS.md §6). For t ≤ T = 1800 s
 *
 *   P(t) = W′/t · (1 − e^{−t·(Pmax − CP)/W′}) + CP,   beyond T subtract A·ln(t/T)
 *
 * ("keeps declining beyond about 30 minutes"). Power: CP and Pmax in W, W′ in J, A in W; speed, the same
 * form (experimental): CS and max speed in m/s, D′ in m, A in m/s. A parameter vector is a Float64Array
 * of 4 in the order of the indices below.
 *
 * The loss is weighted least squares in intensity space, relative and symmetric: Σ c·r², r = (P(t) − y)/y,
 * c = min(t, WEIGHT_CAP_SECONDS) the inverse variance of a best's noise, and an effort above the curve
 * costs what one below it does. It is
 * fed only maximal efforts (ompd-points.ts fittingPoints, the upper concave hull of work), and
 * fitMaximalEfforts trims what still lies clearly under the curve (a dip between two efforts far apart),
 * so noise on the best efforts averages out instead of holding the curve under them. Its bias on known
 * truths is measured on generated seasons (test/engine/kernels/ompd-seasons.test.ts,
 * bench/ompd-seasons.bench.ts). The first version's loss punished any excess 10⁵× harder and was fed the
 * dips; it read CP 1.5–3.2 % and W′ 7–13 % low.
 *
 * The solver profiles the one nonlinear parameter: see fitOmpd. Nothing is allocated per iteration or per
 * point (one scratch set per call).
 * Not here: building the points (ompd-points.ts), the "too little data" rule, rounding.
 * Reference twin: reference/ompd.ts, an exhaustive coarse-to-fine grid search over the same loss;
 * test/engine/kernels/ompd.test.ts holds them together.
 */

/** Parameter indices: critical intensity (CP W, CS m/s), its capacity (W′ J, D′ m), the maximum (Pmax W, m/s), the decline beyond T (A). */
export const CP = 0;
export const W_PRIME = 1;
export const PMAX = 2;
export const A = 3;

/** T, s: where the long-duration decline starts. */
export const OMPD_T = 1800;

/** Lower and upper bounds per parameter index (Float64Array of 4 each); the fit also keeps Pmax ≥ CP. */
export interface OmpdBounds {
  lower: Float64Array;
  upper: Float64Array;
}

/**
 * Power: "CP 1–800 W, Pmax 1–4000 W, W′ 1–60 000 J, A ≥ 0" (ANALYTICS.md §6). A is capped at 300 W so the
 * grid-search twin has a finite range: a decline of 300 W per e-fold of duration beyond 30 min is far
 * past any rider (CP − A·ln 12 at 6 h would be negative for every CP in range).
 */
export const POWER_BOUNDS: OmpdBounds = { lower: Float64Array.of(1, 1, 1, 0), upper: Float64Array.of(800, 60_000, 4000, 300) };

/**
 * Speed (running, experimental), our choice: CS 0.5–8 m/s (a brisk walk to beyond the 10 000 m world
 * record, 6.3 m/s), D′ 1–2000 m (measured values are 100–400 m), max speed 0.5–15 m/s (the 100 m record
 * peaks near 12.4 m/s), A 0–3 m/s.
 */
export const SPEED_BOUNDS: OmpdBounds = { lower: Float64Array.of(0.5, 1, 0.5, 0), upper: Float64Array.of(8, 2000, 15, 3) };

/** The model at duration `t` (s) for parameters `p`. */
export function ompdAt(p: Float64Array, t: number): number {
  const wPrime = p[W_PRIME]!;
  const value = (wPrime / t) * -Math.expm1((-t * (p[PMAX]! - p[CP]!)) / wPrime) + p[CP]!;
  return t > OMPD_T ? value - p[A]! * Math.log(t / OMPD_T) : value;
}

/**
 * Weight of a point held `t` s in the loss, min(t, WEIGHT_CAP_SECONDS): the inverse variance of its
 * relative noise. A best held t seconds averages t noisy seconds (variance ∝ 1/t) until drift between rides
 * dominates: where ompd-points.ts's noise model, HULL_TOLERANCE_1S/√t, reaches HULL_TOLERANCE_FLOOR, at
 * (3 %/0.5 %)² = 36 s. So a lucky 1 s window cannot carry Pmax, which the 5–30 s efforts then settle.
 */
export const WEIGHT_CAP_SECONDS = 36;

/** The loss of `p` over the points (durations s, values > 0): Σ min(t, WEIGHT_CAP_SECONDS)·r², r = (P(t) − y)/y. */
export function ompdLoss(p: Float64Array, durations: Float64Array, values: Float64Array): number {
  let loss = 0;
  for (let i = 0; i < durations.length; i++) {
    const y = values[i]!;
    const t = durations[i]!;
    const r = (ompdAt(p, t) - y) / y;
    loss += (t < WEIGHT_CAP_SECONDS ? t : WEIGHT_CAP_SECONDS) * r * r;
  }
  return loss;
}

/** Clips `p` into the bounds, then raises Pmax to CP (a Pmax below CP would make the curve rise). */
export function projectOmpd(p: Float64Array, bounds: OmpdBounds): void {
  for (let k = 0; k < 4; k++) {
    const v = p[k]!;
    const low = bounds.lower[k]!;
    const high = bounds.upper[k]!;
    p[k] = v < low ? low : v > high ? high : v === v ? v : low;
  }
  if (p[PMAX]! < p[CP]!) p[PMAX] = p[CP]!;
}

/**
 * Robust initial values into `out`: CP from the two-parameter fit (work = CP·t + W′, least squares) of the
 * points between 2 and 30 min, or 90 % of the value nearest 30 min when fewer than two lie there; W′ the
 * largest work above CP, (y − CP)·t, at or below T; Pmax the value at the shortest duration; A the mean
 * decline per ln(t/T) of the points beyond T below the curve at T (0 when there are none). Projected.
 */
export function initialOmpd(durations: Float64Array, values: Float64Array, bounds: OmpdBounds, out: Float64Array): void {
  const n = durations.length;
  let count = 0;
  let st = 0;
  let sw = 0;
  let stt = 0;
  let stw = 0;
  let nearest = -1;
  for (let i = 0; i < n; i++) {
    const t = durations[i]!;
    if (t <= OMPD_T) nearest = i;
    if (t < 120 || t > OMPD_T) continue;
    const work = values[i]! * t;
    count++;
    st += t;
    sw += work;
    stt += t * t;
    stw += t * work;
  }
  const denominator = count * stt - st * st;
  let cp = count >= 2 && denominator > 0 ? (count * stw - st * sw) / denominator : Number.NaN;
  if (!(cp > 0)) cp = 0.9 * values[nearest >= 0 ? nearest : n - 1]!;
  let wPrime = 0;
  for (let i = 0; i < n; i++) {
    const t = durations[i]!;
    if (t > OMPD_T) break;
    const work = (values[i]! - cp) * t;
    if (work > wPrime) wPrime = work;
  }
  out[CP] = cp;
  out[W_PRIME] = wPrime;
  out[PMAX] = values[0]!;
  out[A] = 0;
  projectOmpd(out, bounds);
  out[A] = 0;
  const atT = ompdAt(out, OMPD_T);
  let declines = 0;
  let decline = 0;
  for (let i = 0; i < n; i++) {
    const t = durations[i]!;
    if (t <= OMPD_T) continue;
    declines++;
    decline += Math.max(0, atT - values[i]!) / Math.log(t / OMPD_T);
  }
  out[A] = declines > 0 ? decline / declines : 0;
  projectOmpd(out, bounds);
}

/** What a fit did: its loss, the Newton iterations it took in all, whether the search over τ closed its bracket. */
export interface OmpdFitReport {
  loss: number;
  iterations: number;
  converged: boolean;
}

/** τ = W′/(Pmax − CP), s: the scan's range and points (log-spaced, ~9 per decade), then golden-section steps. */
const TAU_MIN = 0.1;
const TAU_MAX = 5000;
const TAU_SCAN = 42;
const GOLDEN_STEPS = 60;
/** The bracket of ln τ counts as closed below this width. */
const TAU_TOLERANCE = 1e-7;
/** Newton iterations per inner solve (a quadratic: a handful suffice), halvings per line search. */
const NEWTON_STEPS = 40;
const HALVINGS = 30;
const RELATIVE_TOLERANCE = 1e-13;

/** Inner-solve layout: x = (W′, CP, A), the parameters the model is linear in at fixed τ. */
const X_W = 0;
const X_CP = 1;
const X_A = 2;

/** Scratch of one fit, allocated once per call. */
interface Scratch {
  n: number;
  durations: Float64Array;
  values: Float64Array;
  /** ln(t/T) beyond T, else 0. */
  logs: Float64Array;
  /** Each point's weight, min(t, WEIGHT_CAP_SECONDS). */
  weights: Float64Array;
  /** (1 − e^{−t/τ})/t at the current τ. */
  basis: Float64Array;
  x: Float64Array;
  trial: Float64Array;
  step: Float64Array;
  gradient: Float64Array;
  hessian: Float64Array;
  system: Float64Array;
  fixed: Uint8Array;
  lower: Float64Array;
  upper: Float64Array;
  params: Float64Array;
  iterations: number;
}

/**
 * Fits the model to the points (durations s ascending, values > 0; from ompd-points.ts) within `bounds`,
 * into `out` (CP, W′, Pmax, A).
 *
 * At a fixed time constant τ = W′/(Pmax − CP) the model is linear in (W′, CP, A):
 * P(t) = W′·(1 − e^{−t/τ})/t + CP − A·ln(t/T)₊, and the loss is then a convex quadratic, which
 * projected Newton (exact Hessian, box bounds with an active set, backtracking) minimises in a few steps.
 * The fit minimises that profile over τ: a log-spaced scan of TAU_SCAN values, then golden-section search
 * in the bracket around the best. Pmax = CP + W′/τ is projected onto its bounds before a τ is scored, so
 * only feasible vectors compete. The initial values (initialOmpd) start every inner solve of the scan.
 * Allocates its scratch once per call (a few arrays of the points' length); nothing per iteration or point.
 */
export function fitOmpd(durations: Float64Array, values: Float64Array, bounds: OmpdBounds, out: Float64Array): OmpdFitReport {
  const n = durations.length;
  const s: Scratch = {
    n, durations, values,
    logs: new Float64Array(n), weights: new Float64Array(n), basis: new Float64Array(n),
    x: new Float64Array(3), trial: new Float64Array(3), step: new Float64Array(3), gradient: new Float64Array(3),
    hessian: new Float64Array(9), system: new Float64Array(9), fixed: new Uint8Array(3),
    lower: Float64Array.of(bounds.lower[W_PRIME]!, bounds.lower[CP]!, bounds.lower[A]!),
    upper: Float64Array.of(bounds.upper[W_PRIME]!, bounds.upper[CP]!, bounds.upper[A]!),
    params: new Float64Array(4), iterations: 0,
  };
  for (let i = 0; i < n; i++) {
    const t = durations[i]!;
    s.logs[i] = t > OMPD_T ? Math.log(t / OMPD_T) : 0;
    s.weights[i] = t < WEIGHT_CAP_SECONDS ? t : WEIGHT_CAP_SECONDS;
  }
  initialOmpd(durations, values, bounds, out);
  const start = Float64Array.of(out[W_PRIME]!, out[CP]!, out[A]!);
  const best = new Float64Array(3);

  // The scan: every τ from the initial values.
  const from = Math.log(TAU_MIN);
  const width = (Math.log(TAU_MAX) - from) / (TAU_SCAN - 1);
  let bestLoss = Infinity;
  let bestK = 0;
  for (let k = 0; k < TAU_SCAN; k++) {
    s.x.set(start);
    const loss = profileAt(s, from + k * width, bounds);
    if (loss < bestLoss) {
      bestLoss = loss;
      bestK = k;
      best.set(s.x);
    }
  }
  // Golden-section search of ln τ in the bracket around the best scanned τ, each solve from the best so far.
  let low = from + Math.max(0, bestK - 1) * width;
  let high = from + Math.min(TAU_SCAN - 1, bestK + 1) * width;
  let bestU = from + bestK * width;
  const ratio = (Math.sqrt(5) - 1) / 2;
  let u1 = high - ratio * (high - low);
  let u2 = low + ratio * (high - low);
  s.x.set(best);
  let f1 = profileAt(s, u1, bounds);
  if (f1 < bestLoss) { bestLoss = f1; bestU = u1; best.set(s.x); }
  s.x.set(best);
  let f2 = profileAt(s, u2, bounds);
  if (f2 < bestLoss) { bestLoss = f2; bestU = u2; best.set(s.x); }
  let steps = 0;
  while (steps < GOLDEN_STEPS && high - low > TAU_TOLERANCE) {
    steps++;
    if (f1 <= f2) {
      high = u2;
      u2 = u1;
      f2 = f1;
      u1 = high - ratio * (high - low);
      s.x.set(best);
      f1 = profileAt(s, u1, bounds);
      if (f1 < bestLoss) { bestLoss = f1; bestU = u1; best.set(s.x); }
    } else {
      low = u1;
      u1 = u2;
      f1 = f2;
      u2 = low + ratio * (high - low);
      s.x.set(best);
      f2 = profileAt(s, u2, bounds);
      if (f2 < bestLoss) { bestLoss = f2; bestU = u2; best.set(s.x); }
    }
  }
  toParams(best, Math.exp(bestU), bounds, out);
  return { loss: ompdLoss(out, durations, values), iterations: s.iterations, converged: high - low <= TAU_TOLERANCE };
}

/** (W′, CP, A) at τ → the parameter vector, projected. */
function toParams(x: Float64Array, tau: number, bounds: OmpdBounds, out: Float64Array): void {
  out[CP] = x[X_CP]!;
  out[W_PRIME] = x[X_W]!;
  out[PMAX] = x[X_CP]! + x[X_W]! / tau;
  out[A] = x[X_A]!;
  projectOmpd(out, bounds);
}

/** The loss of the best (W′, CP, A) at τ = e^u (solved in place from s.x), scored as the projected vector. */
function profileAt(s: Scratch, u: number, bounds: OmpdBounds): number {
  const tau = Math.exp(u);
  for (let i = 0; i < s.n; i++) {
    const t = s.durations[i]!;
    s.basis[i] = -Math.expm1(-t / tau) / t;
  }
  solveLinear(s);
  toParams(s.x, tau, bounds, s.params);
  return ompdLoss(s.params, s.durations, s.values);
}

/** The loss of (W′, CP, A) = `x` at the current basis. */
function linearLoss(s: Scratch, x: Float64Array): number {
  let loss = 0;
  const w = x[X_W]!;
  const cp = x[X_CP]!;
  const a = x[X_A]!;
  for (let i = 0; i < s.n; i++) {
    const y = s.values[i]!;
    const r = (w * s.basis[i]! + cp - a * s.logs[i]! - y) / y;
    loss += s.weights[i]! * r * r;
  }
  return loss;
}

/** Projected Newton for (W′, CP, A) at the current basis, from and into s.x. */
function solveLinear(s: Scratch): void {
  const { x, trial, step, gradient, hessian, system, fixed, lower, upper } = s;
  for (let k = 0; k < 3; k++) x[k] = Math.min(upper[k]!, Math.max(lower[k]!, x[k]!));
  let loss = linearLoss(s, x);
  for (let iteration = 0; iteration < NEWTON_STEPS; iteration++) {
    s.iterations++;
    gradient.fill(0);
    hessian.fill(0);
    const w = x[X_W]!;
    const cp = x[X_CP]!;
    const a = x[X_A]!;
    for (let i = 0; i < s.n; i++) {
      const y = s.values[i]!;
      // Weighted: ρ(r) = c·r² with the residual and its Jacobian scaled by √c.
      const root = Math.sqrt(s.weights[i]!);
      const j0 = (root * s.basis[i]!) / y;
      const j1 = root / y;
      const j2 = (-root * s.logs[i]!) / y;
      const r = (root * (w * s.basis[i]! + cp - a * s.logs[i]! - y)) / y;
      gradient[0] += j0 * r;
      gradient[1] += j1 * r;
      gradient[2] += j2 * r;
      hessian[0] += j0 * j0;
      hessian[1] += j0 * j1;
      hessian[2] += j0 * j2;
      hessian[4] += j1 * j1;
      hessian[5] += j1 * j2;
      hessian[8] += j2 * j2;
    }
    hessian[3] = hessian[1]!;
    hessian[6] = hessian[2]!;
    hessian[7] = hessian[5]!;
    // Held this step: a parameter at a bound its descent direction leaves, or one no point depends on (A without points beyond T).
    for (let k = 0; k < 3; k++) {
      fixed[k] = (x[k]! <= lower[k]! && gradient[k]! > 0) || (x[k]! >= upper[k]! && gradient[k]! < 0) || !(hessian[k * 4]! > 0) ? 1 : 0;
    }
    for (let j = 0; j < 3; j++) {
      for (let k = 0; k < 3; k++) system[j * 3 + k] = fixed[j] || fixed[k] ? (j === k ? 1 : 0) : hessian[j * 3 + k]! * (j === k ? 1 + 1e-12 : 1);
      step[j] = fixed[j] ? 0 : -gradient[j]!;
    }
    if (!choleskySolve3(system, step)) return;
    let accepted = false;
    let scale = 1;
    let trialLoss = loss;
    for (let halving = 0; halving < HALVINGS && !accepted; halving++) {
      for (let k = 0; k < 3; k++) trial[k] = Math.min(upper[k]!, Math.max(lower[k]!, x[k]! + scale * step[k]!));
      trialLoss = linearLoss(s, trial);
      if (trialLoss < loss) accepted = true;
      else scale /= 2;
    }
    if (!accepted) return; // no step lowers the loss: the minimum at this τ
    x.set(trial);
    const decrease = loss - trialLoss;
    loss = trialLoss;
    if (decrease <= RELATIVE_TOLERANCE * loss) return;
  }
}

/** Solves the symmetric positive definite 3 × 3 `m` (row-major, overwritten by its factor) for `b` in place; false when not positive definite. */
function choleskySolve3(m: Float64Array, b: Float64Array): boolean {
  for (let j = 0; j < 3; j++) {
    let d = m[j * 4]!;
    for (let k = 0; k < j; k++) d -= m[j * 3 + k]! * m[j * 3 + k]!;
    if (!(d > 0)) return false;
    const root = Math.sqrt(d);
    m[j * 4] = root;
    for (let i = j + 1; i < 3; i++) {
      let sum = m[i * 3 + j]!;
      for (let k = 0; k < j; k++) sum -= m[i * 3 + k]! * m[j * 3 + k]!;
      m[i * 3 + j] = sum / root;
    }
  }
  for (let i = 0; i < 3; i++) {
    let sum = b[i]!;
    for (let k = 0; k < i; k++) sum -= m[i * 3 + k]! * b[k]!;
    b[i] = sum / m[i * 4]!;
  }
  for (let i = 2; i >= 0; i--) {
    let sum = b[i]!;
    for (let k = i + 1; k < 3; k++) sum -= m[k * 3 + i]! * b[k]!;
    b[i] = sum / m[i * 4]!;
  }
  return true;
}

/**
 * The decline beyond T when the points cannot identify it (ANALYTICS.md §6: "A takes a documented
 * population prior instead of 0"), as a fraction of CP/CS: A = 0.07·CP puts the 60-minute value near
 * 95 % of CP (the usual relation of an hour's best to CP) and the 6-hour value near 83 %. Our choice.
 */
export const A_PRIOR_RATIO = 0.07;

/**
 * The steepest decline the points may identify, as a fraction of CP/CS: a smaller bound than this from
 * the points beyond T means easy rides or runs, not maximal efforts (a 2-hour ride at 70 % of CP bounds
 * A by 0.22·CP), and A takes the prior instead. A maximal hour at 90 % of CP still identifies A (0.14·CP).
 */
export const A_IDENTIFIABLE_RATIO = 0.15;

/** The shortest duration (s) whose point bounds A: 25 % beyond T, so ln(t/T) ≥ 0.22 and a point's noise is not magnified more than 4.5×. */
export const A_FROM_SECONDS = 1.5 * OMPD_T;

/** A point more than this far under the fitted curve (relative) is a dip, not a maximal effort: trimmed, and the fit run again. */
export const TRIM_DEPTH = 0.02;

/** Trim-and-refit rounds at most; the fewest points a fit keeps. */
const TRIM_ROUNDS = 12;
const MIN_POINTS = 4;

/**
 * The fit of ANALYTICS.md §6 on the maximal efforts (ompd-points.ts fittingPoints), into `out`:
 *
 * 1. CP, W′ and Pmax: fitOmpd on the points up to T (where A plays no part); every point more than
 *    TRIM_DEPTH under the curve is a dip between efforts (the hull keeps some where two efforts lie far
 *    apart) and leaves; again until none does (at least MIN_POINTS stay);
 * 2. the decline A: every point at or beyond A_FROM_SECONDS lies on or under the true curve, so each
 *    bounds A from above by (P(t) without decline − y)/ln(t/T); A is the tightest bound (a maximal long
 *    effort gives the athlete's own A, easy rides only looser bounds), at least 0. When no point lies
 *    there, or the tightest bound exceeds A_IDENTIFIABLE_RATIO·CP, A takes the prior A_PRIOR_RATIO·CP,
 *    so the curve keeps declining beyond 30 minutes in every case.
 *
 * The bias of the whole (points, trimming, decline) on known truths is what test/engine/kernels/ompd-seasons.test.ts holds.
 */
export function fitMaximalEfforts(durations: Float64Array, values: Float64Array, bounds: OmpdBounds, out: Float64Array): OmpdFitReport {
  const n = durations.length;
  const keptT = new Float64Array(n);
  const keptY = new Float64Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (durations[i]! > OMPD_T && kept >= MIN_POINTS) break;
    keptT[kept] = durations[i]!;
    keptY[kept++] = values[i]!;
  }
  let report = fitOmpd(keptT.subarray(0, kept), keptY.subarray(0, kept), bounds, out);
  for (let round = 0; round < TRIM_ROUNDS; round++) {
    let next = 0;
    for (let i = 0; i < kept; i++) {
      if (ompdAt(out, keptT[i]!) / keptY[i]! - 1 < TRIM_DEPTH || kept - (i - next) <= MIN_POINTS) {
        keptT[next] = keptT[i]!;
        keptY[next++] = keptY[i]!;
      }
    }
    if (next === kept) break;
    kept = next;
    report = fitOmpd(keptT.subarray(0, kept), keptY.subarray(0, kept), bounds, out);
  }
  out[A] = 0;
  let decline = Infinity;
  for (let i = 0; i < n; i++) {
    const t = durations[i]!;
    if (t < A_FROM_SECONDS) continue;
    const bound = (ompdAt(out, t) - values[i]!) / Math.log(t / OMPD_T);
    if (bound < decline) decline = bound;
  }
  if (!(decline <= A_IDENTIFIABLE_RATIO * out[CP]!)) decline = A_PRIOR_RATIO * out[CP]!;
  out[A] = Math.min(bounds.upper[A]!, Math.max(bounds.lower[A]!, decline));
  return report;
}
