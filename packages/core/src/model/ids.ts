const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Makes ULIDs: 48 bits of milliseconds then 80 random bits, Crockford base32, sortable by
 * time. Within one millisecond the random part is incremented, so ids from one generator
 * keep their creation order.
 */
export function createUlidGenerator(): (now: number) => string {
  let lastTime = -1;
  let timePart = '';
  const random = new Uint8Array(16); // 16 base32 digits of 5 bits = 80 bits
  const codes = new Array<number>(16);
  return (now: number) => {
    const time = Math.max(0, Math.floor(now));
    if (time === lastTime) {
      incrementBase32(random);
    } else {
      lastTime = time;
      crypto.getRandomValues(random);
      for (let i = 0; i < random.length; i++) random[i] = random[i]! & 31;
      // The time's digits once per millisecond: a bulk write's ids share them.
      timePart = '';
      let t = time;
      for (let i = 0; i < 10; i++) {
        timePart = CROCKFORD[t % 32] + timePart;
        t = Math.floor(t / 32);
      }
    }
    for (let i = 0; i < random.length; i++) codes[i] = CROCKFORD_CODES[random[i]!]!;
    return timePart + String.fromCharCode(...codes);
  };
}

const CROCKFORD_CODES = Array.from(CROCKFORD, (digit) => digit.charCodeAt(0));

function incrementBase32(digits: Uint8Array): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i] = digits[i]! + 1;
      return;
    }
    digits[i] = 0;
  }
}
