// An authorization request as the sandbox's switch sends it to a webhook (ISO 8583 fields by number).
export const MESSAGE = {
  '0': '0100', '2': '5060990000000000008', '3': '000000', '4': '000000150000', '11': '000001', '14': '2912', '25': '00',
  '35': '5060990000000000008=2912601100', '37': '632614000001', '41': 'SBXPOS01', '42': 'SBXMERCHANT0001', '49': '566',
};
