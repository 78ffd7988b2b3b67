//===- NarrowTypes.cpp - float8, float4 and sub-byte integer scalars ------===//
//
// The lowered code holds an element of ONNX's narrow types in an i8: the
// float8 types (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0) and float4e2m1 as
// their bits, int4/int2 sign-extended, uint4/uint2 zero-extended. LLVM has
// no arithmetic on the float ones, so Cast, QuantizeLinear and
// DequantizeLinear convert through f32 with the integer code below: decoding
// is exact; encoding rounds to nearest even and saturates or not as ONNX
// Cast's tables say (E8M0: round_mode up/down/nearest).
//
//===----------------------------------------------------------------------===//

#include "onnxc/Conversion/ONNXToLinalg/ONNXToLinalg.h"

using namespace mlir;
using namespace mlir::onnxc;

namespace {

/// The encoding of a narrow float type with a sign, exponent and mantissa
/// (every one but E8M0).
struct FloatFormat {
  unsigned expBits, manBits;
  int bias;
  bool hasInf;        // E5M2: exponent all ones, mantissa 0
  bool unsignedZero;  // FNUZ: no -0; 0x80 is the only NaN
  unsigned maxCode;   // the largest finite magnitude
  unsigned nanCode;   // a NaN's bits (sign added where there is one)
  bool hasNaN;        // float4e2m1 has none
};

std::optional<FloatFormat> getFloatFormat(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return FloatFormat{4, 3, 7, false, false, 0x7e, 0x7f, true};
  if (isa<Float8E4M3FNUZType>(t))
    return FloatFormat{4, 3, 8, false, true, 0x7f, 0x80, true};
  if (isa<Float8E5M2Type>(t))
    return FloatFormat{5, 2, 15, true, false, 0x7b, 0x7e, true};
  if (isa<Float8E5M2FNUZType>(t))
    return FloatFormat{5, 2, 16, false, true, 0x7f, 0x80, true};
  // float4e2m1 has neither NaN nor infinity: ONNX's reference casts NaN to
  // 0x8 (the bits of -0) and always saturates.
  if (isa<Float4E2M1FNType>(t))
    return FloatFormat{2, 1, 1, false, false, 0x7, 0x8, false};
  return std::nullopt;
}

struct Ints {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v, unsigned width = 32) {
    return arith::ConstantOp::create(b, loc,
                                     b.getIntegerAttr(b.getIntegerType(width), v));
  }
  Value shl(Value x, int64_t n) { return arith::ShLIOp::create(b, loc, x, c(n)); }
  Value shr(Value x, int64_t n) { return arith::ShRUIOp::create(b, loc, x, c(n)); }
  Value band(Value x, int64_t m) { return arith::AndIOp::create(b, loc, x, c(m)); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t y) { return cmp(p, x, c(y)); }
  Value sel(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value sel(Value cond, int64_t x, Value y) { return sel(cond, c(x), y); }
  Value toF32(Value bits) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
  }
  Value fromF32(Value f) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), f);
  }
};

using P = arith::CmpIPredicate;

/// The f32 value of the narrow float bits `code` (an i8).
Value decodeFloat(OpBuilder &b, Location loc, Value code, Type type) {
  Ints i{b, loc};
  Value c = arith::ExtUIOp::create(b, loc, b.getI32Type(), code);
  if (isa<Float8E8M0FNUType>(type)) {
    // 2^(code - 127); 0xff is NaN; 0 is 2^-127, an f32 subnormal.
    Value normal = i.shl(c, 23);
    Value r = i.sel(i.cmp(P::eq, c, 0), 0x00400000, normal);
    r = i.sel(i.cmp(P::eq, c, 0xff), 0x7fc00000, r);
    return i.toF32(r);
  }
  FloatFormat f = *getFloatFormat(type);
  unsigned magBits = f.expBits + f.manBits;
  Value sign = i.shl(i.shr(c, magBits), 31);
  Value mag = i.band(c, (1 << magBits) - 1);
  Value exp = i.shr(mag, f.manBits);
  Value man = i.band(mag, (1 << f.manBits) - 1);
  // Normal: (1 + man / 2^M) * 2^(exp - bias), rebiased into f32's fields.
  Value normal = i.bor(i.shl(i.add(exp, i.c(127 - f.bias)), 23),
                       i.shl(man, 23 - f.manBits));
  // Subnormal: man * 2^(1 - bias - M), exact in f32.
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), man),
      createScalarConstant(b, loc, b.getF32Type(),
                           std::ldexp(1.0, 1 - f.bias - int(f.manBits))));
  Value bits = i.sel(i.cmp(P::eq, exp, 0), i.fromF32(subnormal), normal);
  if (f.hasInf) {
    Value top = i.cmp(P::eq, exp, (1 << f.expBits) - 1);
    Value special =
        i.sel(i.cmp(P::eq, man, 0), 0x7f800000, i.c(0x7fc00000));
    bits = i.sel(top, special, bits);
  } else if (f.hasNaN && !f.unsignedZero) {
    bits = i.sel(i.cmp(P::eq, mag, f.nanCode), 0x7fc00000, bits);
  }
  bits = i.bor(bits, sign);
  if (f.unsignedZero) // 0x80 is NaN, not -0
    bits = i.sel(i.cmp(P::eq, c, 0x80), 0x7fc00000, bits);
  return i.toF32(bits);
}

/// The narrow float bits (an i8) of the f32 `x`, as ONNX Cast rounds and
/// saturates.
Value encodeFloat(OpBuilder &b, Location loc, Value x, Type type,
                  const CastOptions &options) {
  Ints i{b, loc};
  Value bits = i.fromF32(x);
  Value abs = i.band(bits, 0x7fffffff);
  Value sign = i.shr(bits, 31);
  Value isNaN = i.cmp(P::ugt, abs, 0x7f800000);
  Value isInf = i.cmp(P::eq, abs, 0x7f800000);
  Type i8 = b.getI8Type();
  auto toI8 = [&](Value v) { return arith::TruncIOp::create(b, loc, i8, v); };

  if (isa<Float8E8M0FNUType>(type)) {
    // The exponent field is E8M0's code (both biased by 127); round the
    // mantissa away (up), off (down) or to the nearer power (nearest).
    Value exp = i.shr(abs, 23);
    Value man = i.band(abs, 0x7fffff);
    Value inc;
    if (options.roundMode == "down")
      inc = i.c(0);
    else if (options.roundMode == "nearest")
      inc = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                   i.cmp(P::uge, man, 0x400000));
    else
      inc = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                   i.cmp(P::ne, man, 0));
    Value code = i.add(exp, inc);
    int64_t overflow = options.saturate ? 0xfe : 0xff;
    code = i.sel(i.cmp(P::ugt, code, 0xfe), overflow, code);
    if (!options.saturate) // below E8M0's smallest (zero included): NaN
      code = i.sel(i.cmp(P::eq, code, 0), 0xff, code);
    code = i.sel(isInf, overflow, code);
    code = i.sel(isNaN, 0xff, code);
    return toI8(code);
  }

  FloatFormat f = *getFloatFormat(type);
  bool saturate = options.saturate || !f.hasNaN;
  int emin = 1 - f.bias;
  // The exponent of x's quantum in the target: x's own, or the subnormal
  // one; n = x / 2^(q - M) rounded to even is then the significand, and
  // ((q + bias) << M) + n - 2^M the code (a carry moves to the next binade;
  // a subnormal has q + bias == 1 and n < 2^M).
  Value e = i.sub(i.shr(abs, 23), i.c(127));
  Value q = arith::MaxSIOp::create(b, loc, e, i.c(emin));
  Value ulpExp = i.sub(q, i.c(f.manBits));
  Value scale = i.toF32(i.shl(i.sub(i.c(127), ulpExp), 23));
  Value scaled = arith::MulFOp::create(b, loc, i.toF32(abs), scale);
  Value n = arith::FPToUIOp::create(
      b, loc, b.getI32Type(), math::RoundEvenOp::create(b, loc, scaled));
  Value code = i.sub(i.add(i.shl(i.add(q, i.c(f.bias)), f.manBits), n),
                     i.c(1 << f.manBits));
  int64_t infCode = ((1 << f.expBits) - 1) << f.manBits;
  int64_t onOverflow = saturate ? f.maxCode : f.hasInf ? infCode : f.nanCode;
  code = i.sel(i.cmp(P::sgt, code, f.maxCode), onOverflow, code);
  code = i.sel(isInf, onOverflow, code);
  code = i.sel(isNaN, f.nanCode, code);
  Value signBit = i.shl(sign, f.expBits + f.manBits);
  if (f.unsignedZero) {
    // Neither zero nor the NaN takes a sign.
    Value keep = arith::AndIOp::create(b, loc, i.cmp(P::ne, code, 0),
                                       i.cmp(P::ne, code, f.nanCode));
    code = i.sel(keep, i.bor(code, signBit), code);
  } else if (!f.hasNaN) {
    code = i.sel(isNaN, code, i.bor(code, signBit));
  } else {
    code = i.bor(code, signBit);
  }
  return toI8(code);
}

/// The integer type the i8 storage of a narrow integer type reads as: i8 or
/// ui8 with the same signedness.
Type storageIntType(OpBuilder &b, Type t) {
  return IntegerType::get(b.getContext(), 8,
                          t.isUnsignedInteger() ? IntegerType::Unsigned
                                                : IntegerType::Signless);
}

} // namespace

bool mlir::onnxc::isNarrowFloat(Type t) {
  return isa<Float8E4M3FNType, Float8E4M3FNUZType, Float8E5M2Type,
             Float8E5M2FNUZType, Float8E8M0FNUType, Float4E2M1FNType>(t);
}

bool mlir::onnxc::isNarrowInteger(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() > 1 && i.getWidth() < 8;
}

Value mlir::onnxc::castNarrowScalar(OpBuilder &b, Location loc, Value v,
                                    Type from, Type to,
                                    const CastOptions &options) {
  Type f32 = b.getF32Type();
  if (isNarrowFloat(from))
    return castScalar(b, loc, decodeFloat(b, loc, v, from), f32, to, options);
  if (isNarrowInteger(from))
    return castScalar(b, loc, v, storageIntType(b, from), to, options);
  if (isNarrowFloat(to)) {
    Value x = from.isF32() ? v : castScalar(b, loc, v, from, f32);
    return encodeFloat(b, loc, x, to, options);
  }
  assert(isNarrowInteger(to) && "castNarrowScalar without a narrow type");
  // Other integers wrap (ONNX: discard the higher bits); floats convert
  // through i32, whose low bits are what the test data expect.
  Type i32 = b.getI32Type();
  Value wide = isa<FloatType>(from) ? castScalar(b, loc, v, from, i32) : v;
  Type wideType = isa<FloatType>(from) ? i32 : from;
  Value byte = castScalar(b, loc, wide, wideType, b.getI8Type());
  unsigned width = cast<IntegerType>(to).getWidth();
  Ints i{b, loc};
  if (to.isUnsignedInteger())
    return arith::AndIOp::create(b, loc, byte, i.c((1 << width) - 1, 8));
  Value shift = i.c(8 - width, 8);
  return arith::ShRSIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, byte, shift), shift);
}

unsigned mlir::onnxc::getONNXBitWidth(Type t) {
  if (t.isInteger(1))
    return 8; // ONNX's bool is a byte
  if (auto c = dyn_cast<ComplexType>(t))
    return 2 * getONNXBitWidth(c.getElementType());
  return t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
}

Value mlir::onnxc::bitcastScalar(OpBuilder &b, Location loc, Value v,
                                 Type from, Type to) {
  unsigned width = getONNXBitWidth(from);
  Ints i{b, loc};
  // The bits as an integer of `width` (held in i8 when narrower).
  Value bits = v;
  if (from.isInteger(1))
    bits = arith::ExtUIOp::create(b, loc, b.getI8Type(), v);
  else if (isa<FloatType>(from) && !isNarrowFloat(from))
    bits = arith::BitcastOp::create(b, loc, b.getIntegerType(width), v);
  else if (width < 8)
    bits = arith::AndIOp::create(b, loc, v, i.c((1 << width) - 1, 8));
  // ... read as `to`.
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, P::ne, bits, i.c(0, 8));
  if (isa<FloatType>(to) && !isNarrowFloat(to))
    return arith::BitcastOp::create(b, loc, to, bits);
  if (isNarrowInteger(to) && !to.isUnsignedInteger()) {
    Value shift = i.c(8 - width, 8);
    return arith::ShRSIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, bits, shift), shift);
  }
  return bits;
}
