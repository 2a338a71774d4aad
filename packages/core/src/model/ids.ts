const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Makes ULIDs: 48 bits of milliseconds then 80 random bits, Crockford base32, sortable by
 * time. Within one millisecond the random part is incremented, so ids from one generator
 * keep their creation order.
 */
export function createUlidGenerator(): (now: number) => string {
  let lastTime = -1;
  const random = new Uint8Array(16); // 16 base32 digits of 5 bits = 80 bits
  return (now: number) => {
    const time = Math.max(0, Math.floor(now));
    if (time === lastTime) {
      incrementBase32(random);
    } else {
      lastTime = time;
      crypto.getRandomValues(random);
      for (let i = 0; i < random.length; i++) random[i] = random[i]! & 31;
    }
    let timePart = '';
    let t = time;
    for (let i = 0; i < 10; i++) {
      timePart = CROCKFORD[t % 32] + timePart;
      t = Math.floor(t / 32);
    }
    let randomPart = '';
    for (let i = 0; i < random.length; i++) randomPart += CROCKFORD[random[i]!];
    return timePart + randomPart;
  };
}

function incrementBase32(digits: Uint8Array): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i] = digits[i]! + 1;
      return;
    }
    digits[i] = 0;
  }
}
